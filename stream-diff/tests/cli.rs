//! End-to-end tests: the renderer, the CLI's verdicts and exit status, and shrinking a real
//! divergence.

use std::{path::PathBuf, process::Command, time::Duration};

use stream_diff::{
    diff::{Class, Verdict},
    gen::Program,
    load_reference, shrink,
    side::{self, Limits, ReferenceSource, SideKind},
    Runner,
};

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stream-diff-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn tool(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stream-diff"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn native_events(script: &str) -> Vec<String> {
    let none = ReferenceSource {
        install: String::new(),
        bundle: String::new(),
        bundle_name: String::new(),
    };
    let result = side::run_fresh(SideKind::Native, &none, script, Limits::default());
    assert_eq!(result.outcome, side::Outcome::Idle, "{:?}", result.events);
    result.events
}

#[test]
fn renders_tricky_values() {
    let events = native_events(
        r#"
        log(-0, 0, NaN, Infinity, 10n, 'a"b', Symbol('s'), Symbol(), undefined, null, true);
        log(new Uint8Array([1, 2, 3]).subarray(1), new Float64Array([-0, NaN]), new BigInt64Array([5n]));
        const ab = new ArrayBuffer(2); const v = new Uint16Array(ab); ab.transfer(); log(v, ab);
        log(new DataView(new ArrayBuffer(4), 1, 2), new ArrayBuffer(3));
        const o = { a: [1, { b: { c: { d: { e: 1 } } } }] }; o.self = o; log(o);
        log(Object.create(null), { get g() { throw 1; } }, [, 2], function f() {}, () => {});
        log(err('mine'), err('t', TypeError), new Error('not mine'), new RangeError(), new DOMException('m', 'AbortError'));
        log(new ReadableStream(), Promise.resolve(), new (class Foo {})());
        "#,
    );
    assert_eq!(
        events,
        vec![
            r#"-0 0 NaN Infinity 10n "a\"b" Symbol(s) Symbol() undefined null true"#,
            "Uint8Array[2,3]@1/3 Float64Array[-0,NaN]@0/16 BigInt64Array[5n]@0/8",
            "Uint16Array(detached) ArrayBuffer(detached)",
            "DataView[0,0]@1/4 ArrayBuffer[0,0,0]",
            "{a: [1, {b: {c: {...}}}], self: [Circular]}",
            "{} {g: [Getter]} [2] [function f] [function ]",
            "Error(sd:mine) TypeError(sd:t) Error RangeError DOMException(AbortError)",
            "[ReadableStream] [Promise] [Foo]",
        ]
    );
}

#[test]
fn patched_builtins_do_not_disturb_logging() {
    let events = native_events(
        r#"
        Promise.prototype.then = function () { throw new Error('patched then'); };
        Array.prototype.push = Array.prototype.join = function () { throw 1; };
        Object.defineProperty(Object.prototype, 'value', { get() { throw 2; }, configurable: true });
        Function.prototype.call = Function.prototype.apply = function () { throw 3; };
        String.prototype.slice = function () { throw 4; };
        JSON.stringify = () => 'x';
        const rs = new ReadableStream(T('rs', { start(c) { enq(c, 'a'); c.close(); } }));
        watch('read', rs.getReader().read());
        log([1, 'two'], err('e'));
        "#,
    );
    assert_eq!(
        events,
        vec![
            "rs.start([ReadableStreamDefaultController])",
            "enqueue(\"a\")",
            "[1, \"two\"] Error(sd:e)",
            "read fulfilled {value: \"a\", done: false}",
        ]
    );
}

#[test]
fn reports_and_top_level_errors_are_events() {
    let events = native_events(
        r#"
        Promise.reject(err('lost'));
        setTimeout(() => { throw new TypeError('from a task'); }, 0);
        later(2, 'x', () => log('after'));
        throw err('top');
        "#,
    );
    assert_eq!(
        events,
        vec![
            "script threw Error(sd:top)",
            "report unhandled Error(sd:lost)",
            "report uncaught TypeError",
            "\"after\"",
        ]
    );
}

#[test]
fn identical_script_is_same() {
    let path = write(
        "same.js",
        r#"
        const rs = new ReadableStream(T('rs', { start(c) { enq(c, 1); }, pull(c) { c.close(); } }));
        const r = rs.getReader();
        watch('closed', r.closed);
        watch('read1', r.read());
        watch('read2', r.read());
        const ws = new WritableStream(T('ws', { write(chunk) { return afterMicrotask(() => {}); } }));
        const w = ws.getWriter();
        watch('write', w.write('x'));
        watch('close', w.close());
        "#,
    );
    let (code, out) = tool(&[path.to_str().unwrap()]);
    assert!(out.contains(": same ("), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_constructed_difference_is_a_real_divergence_with_exit_1() {
    // install.js defines `window` on the reference side only.
    let path = write(
        "differs.js",
        "log('start'); log(typeof window); log('end');",
    );
    let (code, out) = tool(&[path.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("class: real"), "{out}");
    assert!(
        out.contains("\"undefined\"") && out.contains("\"object\""),
        "{out}"
    );

    let (code, json) = tool(&["--json", path.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        json.contains("\"result\":\"diverged\",\"class\":\"real\""),
        "{json}"
    );
    assert!(json.contains("\"index\":1,\"kind\":\"content\""), "{json}");
}

#[test]
fn a_one_sided_hang_is_reported_and_fails() {
    let path = write(
        "hang.js",
        "log('a'); if (typeof window === 'undefined') setInterval(() => {}, 5);",
    );
    let (code, out) = tool(&["--timeout", "300ms", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(": hang ("), "{out}");
    assert!(out.contains("native: hang"), "{out}");
}

#[test]
fn shrinking_keeps_the_divergence_and_drops_the_rest() {
    let reference = load_reference(None).expect("the reference bundle");
    let limits = Limits {
        timeout: Duration::from_secs(2),
        max_events: 1000,
    };
    // Fresh contexts: the test harness runs tests on several threads, so no fork here.
    let mut runner = Runner::new(reference, limits, false).unwrap();
    let program = Program {
        seed: 0,
        index: 0,
        header: "var rs1, r2;".into(),
        stmts: vec![
            "step('s1', () => { rs1 = new ReadableStream({ start(c) { c.enqueue(1); } }); });"
                .into(),
            "step('s2', () => { r2 = rs1.getReader(); });".into(),
            "step('s3', () => { watch('r2.read', r2.read()); });".into(),
            "step('s4', () => { log(typeof window); });".into(),
            "later(1, 's5', () => { log('late'); });".into(),
        ],
    };
    let verdict = runner.verdict(&program.to_js());
    assert_eq!(verdict, Verdict::Diverged(Class::Real));
    let (small, runs) =
        shrink::shrink(&program, 50, &mut |p| runner.verdict(&p.to_js()) == verdict);
    assert_eq!(
        small.stmts,
        vec![program.stmts[3].clone()],
        "after {runs} runs"
    );
}

#[test]
fn engine_options_are_checked() {
    let (code, _) = tool(&["--engine", "nope", "--random", "1"]);
    assert_eq!(code, 2);
    // The native side's own engine is no other side.
    let (code, _) = tool(&["--against", stream_diff::ENGINE, "--random", "1"]);
    assert_eq!(code, 2);
}

#[test]
fn a_loop_without_events_is_stopped() {
    // Boa's loop-iteration limit, or QuickJS's interrupt at the deadline, ends it: `same` or
    // `runaway`, never a hang of the tool.
    let path = write("loop.js", "log('a'); while (true) {}");
    let (code, out) = tool(&["--timeout", "300ms", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn against_runs_the_other_side_in_a_peer_process() {
    // The peer is this very binary standing in for the other engine: native against native
    // on one engine is the same.
    let other = if stream_diff::ENGINE == "boa" {
        "quickjs"
    } else {
        "boa"
    };
    let run = |script: &str| {
        let path = write(&format!("against-{}.js", script.len()), script);
        let out = Command::new(env!("CARGO_BIN_EXE_stream-diff"))
            .env(
                stream_diff::binary_variable(other),
                env!("CARGO_BIN_EXE_stream-diff"),
            )
            .args(["--against", other, path.to_str().unwrap()])
            .output()
            .expect("runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = run("const r = new ReadableStream({ start(c) { enq(c, 1); } }).getReader(); watch('read', r.read());");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(": same (") && out.contains(&format!(" {other})")),
        "{out}"
    );
}

/// Each generated program's (index, result, class) from `--json` output, by index.
fn json_verdicts(out: &str) -> Vec<(u64, String, String)> {
    let field = |line: &str, key: &str| -> Option<String> {
        let rest = line.split(&format!("\"{key}\":")).nth(1)?;
        let value: String = rest
            .trim_start_matches('"')
            .chars()
            .take_while(|c| !matches!(c, '"' | ',' | '}'))
            .collect();
        Some(value)
    };
    let mut verdicts: Vec<_> = out
        .lines()
        .filter(|line| line.starts_with("{\"program\""))
        .map(|line| {
            (
                field(line, "index")
                    .and_then(|i| i.parse().ok())
                    .unwrap_or(u64::MAX),
                field(line, "result").unwrap_or_default(),
                field(line, "class").unwrap_or_default(),
            )
        })
        .collect();
    verdicts.sort();
    verdicts
}

#[test]
fn jobs_run_every_program_once_with_the_verdicts_of_one_thread() {
    let run = |jobs: &str| {
        let (code, out) = tool(&[
            "--random",
            "5",
            "--seed",
            "5",
            "--first",
            "3",
            "--no-fork",
            "--no-shrink",
            "--json",
            "--jobs",
            jobs,
        ]);
        (code, json_verdicts(&out))
    };
    let (code_one, one) = run("1");
    let (code_two, two) = run("2");
    // Programs 3..8, each once, with the same result and class on two threads as on one.
    assert_eq!(
        one.iter().map(|v| v.0).collect::<Vec<_>>(),
        (3..8).collect::<Vec<_>>()
    );
    assert_eq!(two, one);
    assert_eq!(code_two, code_one);
    // Threads run fresh contexts only: with fork mode (the default) it is a usage error.
    let (code, _) = tool(&["--random", "2", "--jobs", "2"]);
    assert_eq!(code, 2);
    let (code, _) = tool(&["--random", "2", "--no-fork", "--jobs", "0"]);
    assert_eq!(code, 2);
}
