/** Small pieces every dashboard table shares. */

/** A table's head row: one column header per name (`scope="col"`, so screen readers announce it per cell). */
export function ColumnHeads(props: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {props.names.map((n) => (
          <th scope="col">{n}</th>
        ))}
      </tr>
    </thead>
  );
}
