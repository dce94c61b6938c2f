//! Scaling (ratio, not time): unawaited `writer.write()` calls drained by a synchronous sink,
//! timed at n and 8n chunks. A linear implementation gives a ratio near 8; the bound is 32.

use std::time::Duration;

use crate::support::scaling::{time_script, Scaling};
use crate::support::script::{Fixture, TestAction};

/// Writes `n` chunks without awaiting, drains the job queue, and checks that the sink saw every
/// chunk once, in order, and that every write promise fulfilled.
fn run(n: u32) -> Duration {
    let mut fixture = Fixture::streams();
    let setup = format!(
        r#"
        var N = {n};
        var next = 0, bad = 0, fulfilled = 0;
        var ws = new WritableStream({{
            write(chunk) {{ if (chunk !== next) bad++; next++; }}
        }});
        var writer = ws.getWriter();
        var onFulfilled = () => {{ fulfilled++; }};
        "#
    );
    fixture.eval(&setup);
    let elapsed = time_script(
        fixture.context(),
        "for (let i = 0; i < N; i++) writer.write(i).then(onFulfilled);",
    );
    // next, bad, fulfilled, desiredSize
    fixture.run([TestAction::assert_string(
        "`${next} ${bad} ${fulfilled} ${writer.desiredSize}`",
        format!("{n} 0 {n} 1"),
    )]);
    elapsed
}

#[test]
fn unawaited_writes_scale_linearly() {
    let n = 20_000;
    Scaling {
        name: "writes",
        n,
        factor: 8,
        warm_up: n / 4,
        small_runs: 3,
        large_runs: 2,
    }
    .assert_linear(run);
}
