//! The scaling harness: a workload is timed at n and at k·n, and time(k·n) / time(n) must stay
//! within 4× the linear multiple (≤ 4k). A ratio is asserted, never a time, so the tests hold
//! in debug and release builds.

use std::time::{Duration, Instant};

use boa_streams::host::{test_api, Context};
use boa_streams::Value;

use super::script::Fixture;

/// One scaling measurement: a warm-up run, then the best of a few runs at each size (noise only
/// ever adds time).
#[derive(Debug, Clone, Copy)]
pub struct Scaling<'a> {
    /// Names the workload in the printed line and the failure.
    pub name: &'a str,
    /// The small size.
    pub n: u32,
    /// The large size is `factor · n`; the bound on the ratio is `4 · factor`.
    pub factor: u32,
    /// The size of the warm-up run (first-time shape and inline-cache work, heap growth).
    pub warm_up: u32,
    /// Runs at n, the best of which counts.
    pub small_runs: usize,
    /// Runs at `factor · n`, the best of which counts.
    pub large_runs: usize,
}

impl Scaling<'_> {
    /// Times `time(size)` (which runs the workload at `size` and returns how long it took) as
    /// described, prints the timings and ratio, and asserts the bound.
    pub fn assert_linear(&self, mut time: impl FnMut(u32) -> Duration) {
        let Scaling {
            name,
            n,
            factor,
            warm_up,
            small_runs,
            large_runs,
        } = *self;
        let limit = 4.0 * f64::from(factor);
        time(warm_up);
        let small = best(&mut time, n, small_runs);
        let large = best(&mut time, factor * n, large_runs);
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
        println!(
            "{name}: n={n} {small:?}, {factor}n={} {large:?}, ratio {ratio:.2}",
            factor * n
        );
        assert!(
            ratio <= limit,
            "{name}: time({factor}n)/time(n) = {ratio:.2} > {limit} (n: {small:?}, {factor}n: {large:?})"
        );
    }
}

/// The best of `runs` timings at `size`.
fn best(time: &mut impl FnMut(u32) -> Duration, size: u32, runs: usize) -> Duration {
    assert!(runs > 0, "at least one run");
    (0..runs).map(|_| time(size)).min().expect("runs")
}

/// Asserts that the async function `shape` (defined by `shapes`, resolving to its argument)
/// scales linearly: warmed up at n, the best of 3 runs at n against the best of 2 at 8n, one
/// `Context` throughout.
pub fn assert_shape_scales(shapes: &str, shape: &str, n: u32) {
    let mut fixture = Fixture::streams().with(shapes);
    Scaling {
        name: shape,
        n,
        factor: 8,
        warm_up: n,
        small_runs: 3,
        large_runs: 2,
    }
    .assert_linear(|size| time_shape(fixture.context(), shape, size));
}

/// Runs `shape(n)` to completion and returns how long it took.
pub fn time_shape(ctx: &mut Context, shape: &str, n: u32) -> Duration {
    super::set_global(ctx, "__result", Value::undefined());
    let script = format!(
        "{shape}({n}).then(v => {{ globalThis.__result = v; }}, e => {{ globalThis.__result = String(e); }});"
    );
    test_api::collect_garbage(ctx);
    let start = Instant::now();
    test_api::run_script(ctx, &script).expect("run the shape");
    let elapsed = start.elapsed();
    let result = super::global(ctx, "__result");
    assert_eq!(
        result.as_number(),
        Some(f64::from(n)),
        "{shape}({n}) did not complete: {result:?}"
    );
    elapsed
}

/// Evaluates `src` (which must not throw) and runs the job queue until it is empty, and
/// returns how long that took.
pub fn time_script(ctx: &mut Context, src: &str) -> Duration {
    let start = Instant::now();
    super::eval(ctx, src);
    start.elapsed()
}
