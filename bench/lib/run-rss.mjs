// A run's resident memory at points of its progress (bench/sharded-run's flat-memory check: the RSS
// while the last results came in against while the 2,000th did).

/**
 * The results done at time `t`, interpolated between the progress reads around it. `progress` is
 * [{t, done}] in time order, from the submit ({done: 0}) to the run's finished_at ({done: n}).
 * Reads come a second apart and see ~1,000 more results each, so labelling a sample with the last
 * read put samples a whole read behind, and a window of the last 5 % could hold none.
 */
export function doneAt(progress, t) {
  if (progress.length === 0 || t <= progress[0].t) return 0;
  for (let i = 1; i < progress.length; i++) {
    const a = progress[i - 1];
    const b = progress[i];
    if (t <= b.t) return b.t === a.t ? b.done : a.done + ((b.done - a.done) * (t - a.t)) / (b.t - a.t);
  }
  return progress.at(-1).done;
}

/**
 * The peak RSS of the samples ([{t, rss}]) taken while the results done were within the last 5 % of
 * the run before `at`: (at − n/20, at]. null without one.
 */
export function rssAt(samples, progress, at, n) {
  const inWindow = samples.filter((x) => {
    const done = doneAt(progress, x.t);
    return done > at - n / 20 && done <= at;
  });
  return inWindow.length ? Math.max(...inWindow.map((x) => x.rss)) : null;
}
