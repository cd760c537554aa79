/** A bench's entry: exit with the code main() returns; a throw prints its stack and exits 1. */
export function runMain(main) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`FAILED: ${err?.stack ?? err}`);
      process.exit(1);
    },
  );
}
