//! `console`: the Console Standard's namespace (<https://console.spec.whatwg.org/>), written over
//! the engine contract, the same on both engines.
//!
//! The Logger's Formatter handles `%s`, `%d`/`%i`, `%f`, `%o`/`%O` and `%c`; the Printer writes
//! one line per call, indented two spaces per open group, to stdout (`log`, `info`, `debug`,
//! `dir`, `dirxml`, `trace`, `table`, `group`, `count`, `time*`) or to stderr (`error`, `warn`,
//! `assert`), or everything to stderr with [`super::HostOptions::console_to_stderr`]. A value
//! that is not a string prints as the engine inspects it (`engine::inspect`). The state (group
//! depth, counts, timers) is the agent's.

use std::{
    cell::{Cell, RefCell},
    collections::HashMap,
    io::Write,
    time::Instant,
};

use crate::engine::{
    self, webidl, Cx, JsResult, JsString, JsSymbol, NativeFunctionPointer, PropertyDescriptor,
    Value,
};

/// The agent's console state.
struct ConsoleState {
    to_stderr: bool,
    /// The depth of the group stack.
    group: Cell<usize>,
    /// The count map.
    counts: RefCell<HashMap<String, u64>>,
    /// The timer table.
    timers: RefCell<HashMap<String, Instant>>,
}

/// Sets up the agent's console state (`to_stderr`: every message goes to stderr).
pub(super) fn set_up(to_stderr: bool, ctx: &mut Cx) {
    engine::set_agent_data(
        ctx,
        ConsoleState {
            to_stderr,
            group: Cell::new(0),
            counts: RefCell::default(),
            timers: RefCell::default(),
        },
    );
}

/// Installs `console` on the current realm's global object: a namespace object (its
/// @@toStringTag is "console") whose operations are writable, enumerable and configurable.
pub(super) fn install(ctx: &mut Cx) -> JsResult<()> {
    let console = engine::clone::new_plain_object(ctx);
    let methods: [(&str, usize, NativeFunctionPointer); 20] = [
        ("assert", 0, assert),
        ("clear", 0, clear),
        ("debug", 0, log),
        ("error", 0, error),
        ("info", 0, log),
        ("log", 0, log),
        ("table", 0, log),
        ("trace", 0, trace),
        ("warn", 0, error),
        ("dir", 0, dir),
        ("dirxml", 0, log),
        ("count", 0, count),
        ("countReset", 0, count_reset),
        ("group", 0, group),
        ("groupCollapsed", 0, group),
        ("groupEnd", 0, group_end),
        ("time", 0, time),
        ("timeLog", 0, time_log),
        ("timeEnd", 0, time_end),
        // AD-HOC: `exception`, an alias of `error` that the Console Standard dropped, which
        // Boa's runtime console (this host's console before it) had.
        ("exception", 0, error),
    ];
    for (name, length, f) in methods {
        webidl::define_operation(&console, name, length, f, ctx)?;
    }
    console.define_property_or_throw(
        JsSymbol::to_string_tag(),
        PropertyDescriptor::builder()
            .value(JsString::from("console"))
            .writable(false)
            .enumerable(false)
            .configurable(true),
        ctx,
    )?;
    engine::global_object(ctx)
        .define_property_or_throw("console", super::globals::hidden(console), ctx)
        .map(drop)
}

/// Where a message goes.
#[derive(Clone, Copy)]
enum Level {
    /// `log`, `info`, `debug`, ...: stdout.
    Out,
    /// `error`, `warn`, `assert`: stderr.
    Err,
}

/// The Printer: one line, indented by the group depth.
fn print(level: Level, line: &str, ctx: &Cx) {
    let (depth, to_stderr) = engine::agent_data::<ConsoleState>(ctx)
        .map_or((0, false), |s| (s.group.get(), s.to_stderr));
    let indent = "  ".repeat(depth);
    // A closed stream loses the message; it does not throw into script.
    let _ = match (level, to_stderr) {
        (Level::Out, false) => writeln!(std::io::stdout(), "{indent}{line}"),
        _ => writeln!(std::io::stderr(), "{indent}{line}"),
    };
}

/// A value as the Printer shows it: a string as itself, anything else as the engine inspects
/// it.
fn display(value: &Value, ctx: &mut Cx) -> String {
    match value.as_string() {
        Some(s) => s.to_std_string_escaped(),
        None => engine::inspect(value, ctx),
    }
}

/// <https://console.spec.whatwg.org/#formatter>, then the Printer's join: a first argument that
/// is a string has its format specifiers replaced by the arguments after it (each specifier
/// consumes one); the arguments left are appended, separated by spaces.
fn format(args: &[Value], ctx: &mut Cx) -> String {
    let Some((first, mut rest)) = args.split_first() else {
        return String::new();
    };
    let mut parts = Vec::with_capacity(rest.len() + 1);
    match first.as_string() {
        Some(target) if !rest.is_empty() => {
            let target = target.to_std_string_escaped();
            let mut out = String::with_capacity(target.len());
            let mut chars = target.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                match chars.peek().copied() {
                    Some('%') => {
                        chars.next();
                        out.push('%');
                    }
                    Some(specifier @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                        let Some((current, after)) = rest.split_first() else {
                            out.push('%');
                            continue;
                        };
                        chars.next();
                        rest = after;
                        match specifier {
                            // %String%(current).
                            's' => out.push_str(&engine::value_message(current, ctx)),
                            // %parseInt%(current, 10) (a symbol is NaN).
                            'd' | 'i' => out.push_str(&number_text(parse_int(current, ctx))),
                            // %parseFloat%(current).
                            'f' => out.push_str(&number_text(parse_float(current, ctx))),
                            // Generic JavaScript object formatting.
                            'o' | 'O' => out.push_str(&engine::inspect(current, ctx)),
                            // CSS: consumed, not shown.
                            _ => {}
                        }
                    }
                    _ => out.push('%'),
                }
            }
            parts.push(out);
        }
        _ => parts.push(display(first, ctx)),
    }
    for value in rest {
        parts.push(display(value, ctx));
    }
    parts.join(" ")
}

/// A number as JavaScript's ToString writes it (integers without a fraction).
fn number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if n == n.trunc() && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// The string a numeric specifier parses (`%String%(value)`; a symbol has none).
fn specifier_text(value: &Value, ctx: &mut Cx) -> Option<String> {
    if let Some(n) = value.as_number() {
        return Some(number_text(n));
    }
    value.to_string(ctx).ok().map(|s| s.to_std_string_escaped())
}

/// `%parseInt%(value, 10)`.
fn parse_int(value: &Value, ctx: &mut Cx) -> f64 {
    let Some(text) = specifier_text(value, ctx) else {
        return f64::NAN;
    };
    let text = text.trim_start();
    let (sign, digits) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, &text[1..]),
        Some(b'+') => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    let digits: String = digits.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<f64>().map_or(f64::NAN, |n| sign * n)
}

/// `%parseFloat%(value)`: the longest prefix that is a decimal literal (or `Infinity`).
fn parse_float(value: &Value, ctx: &mut Cx) -> f64 {
    let Some(text) = specifier_text(value, ctx) else {
        return f64::NAN;
    };
    let text = text.trim_start();
    let unsigned = text.trim_start_matches(['+', '-']);
    if unsigned.starts_with("Infinity") {
        return if text.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    (1..=text.len())
        .rev()
        .filter(|&end| text.is_char_boundary(end))
        .find_map(|end| {
            let prefix = &text[..end];
            let plain = prefix
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
            plain.then(|| prefix.parse::<f64>().ok()).flatten()
        })
        .unwrap_or(f64::NAN)
}

/// A label argument (`optional DOMString label = "default"`).
fn label(args: &[Value], ctx: &mut Cx) -> JsResult<String> {
    match args.first() {
        Some(value) if !value.is_undefined() => Ok(value.to_string(ctx)?.to_std_string_escaped()),
        _ => Ok("default".to_owned()),
    }
}

/// Runs `f` on the agent's console state, if it has one.
fn with_state<R>(ctx: &Cx, f: impl FnOnce(&ConsoleState) -> R) -> Option<R> {
    engine::agent_data::<ConsoleState>(ctx).map(f)
}

/// `log`, `info`, `debug`, `dirxml`, and (AD-HOC: not as a table) `table`.
fn log(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let line = format(args, ctx);
    print(Level::Out, &line, ctx);
    Ok(Value::undefined())
}

/// `error`, `warn` (and `exception`).
fn error(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let line = format(args, ctx);
    print(Level::Err, &line, ctx);
    Ok(Value::undefined())
}

/// `assert(condition, ...data)`.
fn assert(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if args.first().is_some_and(Value::to_boolean) {
        return Ok(Value::undefined());
    }
    let data = args.get(1..).unwrap_or_default();
    let line = if data.is_empty() {
        "Assertion failed".to_owned()
    } else {
        format!("Assertion failed: {}", format(data, ctx))
    };
    print(Level::Err, &line, ctx);
    Ok(Value::undefined())
}

/// `clear()`: empties the group stack (there is no console to clear).
fn clear(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    with_state(ctx, |s| s.group.set(0));
    Ok(Value::undefined())
}

/// `trace(...data)`: AD-HOC: the call stack is not available to the host, so it prints
/// `Trace` and the formatted data.
fn trace(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let line = if args.is_empty() {
        "Trace".to_owned()
    } else {
        format!("Trace: {}", format(args, ctx))
    };
    print(Level::Out, &line, ctx);
    Ok(Value::undefined())
}

/// `dir(item)`: the item with generic JavaScript object formatting.
fn dir(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let item = args.first().cloned().unwrap_or_default();
    let line = engine::inspect(&item, ctx);
    print(Level::Out, &line, ctx);
    Ok(Value::undefined())
}

/// `count(label)`.
fn count(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = label(args, ctx)?;
    let count = with_state(ctx, |s| {
        let mut counts = s.counts.borrow_mut();
        let count = counts.entry(label.clone()).or_insert(0);
        *count += 1;
        *count
    })
    .unwrap_or(1);
    print(Level::Out, &format!("{label}: {count}"), ctx);
    Ok(Value::undefined())
}

/// `countReset(label)`.
fn count_reset(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = label(args, ctx)?;
    let found = with_state(ctx, |s| {
        s.counts
            .borrow_mut()
            .get_mut(&label)
            .map(|count| *count = 0)
            .is_some()
    })
    .unwrap_or(false);
    if !found {
        print(
            Level::Err,
            &format!("Count for '{label}' does not exist"),
            ctx,
        );
    }
    Ok(Value::undefined())
}

/// `group(...data)` and `groupCollapsed(...data)`: prints the label (when given), then opens a
/// group.
fn group(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    if !args.is_empty() {
        let line = format(args, ctx);
        print(Level::Out, &line, ctx);
    }
    with_state(ctx, |s| s.group.set(s.group.get() + 1));
    Ok(Value::undefined())
}

/// `groupEnd()`.
fn group_end(_: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    with_state(ctx, |s| s.group.set(s.group.get().saturating_sub(1)));
    Ok(Value::undefined())
}

/// `time(label)`.
fn time(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let label = label(args, ctx)?;
    let started = with_state(ctx, |s| {
        let mut timers = s.timers.borrow_mut();
        if timers.contains_key(&label) {
            return false;
        }
        timers.insert(label.clone(), Instant::now());
        true
    })
    .unwrap_or(true);
    if !started {
        print(Level::Err, &format!("Timer '{label}' already exists"), ctx);
    }
    Ok(Value::undefined())
}

/// `timeLog(label, ...data)` and `timeEnd(label)`: `label: <duration>ms`, and the data.
fn time_report(args: &[Value], end: bool, ctx: &mut Cx) -> JsResult<Value> {
    let label = label(args, ctx)?;
    let started = with_state(ctx, |s| {
        let mut timers = s.timers.borrow_mut();
        if end {
            timers.remove(&label)
        } else {
            timers.get(&label).copied()
        }
    })
    .flatten();
    let Some(started) = started else {
        print(Level::Err, &format!("Timer '{label}' does not exist"), ctx);
        return Ok(Value::undefined());
    };
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut line = format!("{label}: {ms:.3}ms");
    let data = args.get(1..).unwrap_or_default();
    if !end && !data.is_empty() {
        line.push(' ');
        line.push_str(&format(data, ctx));
    }
    print(Level::Out, &line, ctx);
    Ok(Value::undefined())
}

fn time_log(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    time_report(args, false, ctx)
}

fn time_end(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    time_report(args, true, ctx)
}

#[cfg(test)]
mod tests {
    use super::format;
    use crate::engine::Value;
    use crate::host::{test_api, Host, HostOptions};

    /// What the formatter makes of the arguments `source` (an array literal) evaluates to.
    fn formatted(source: &str) -> String {
        let (host, mut ctx) = Host::new(HostOptions::default()).expect("a host");
        let array = test_api::evaluate(&mut ctx, source)
            .ok()
            .and_then(|v| v.as_object())
            .expect("an array");
        let length = array
            .get("length", &mut ctx)
            .ok()
            .and_then(|v| v.as_number())
            .unwrap_or(0.0) as usize;
        let args: Vec<Value> = (0..length)
            .map(|i| {
                array
                    .get(i.to_string().as_str(), &mut ctx)
                    .expect("an element")
            })
            .collect();
        let line = format(&args, &mut ctx);
        drop((args, array, ctx, host));
        line
    }

    #[test]
    fn the_formatter_replaces_specifiers_and_appends_the_rest() {
        assert_eq!(
            formatted("['%s is %d years (%i), %f%%', 'Ada', 36.6, '12px', '2.5e1x', 'more']"),
            "Ada is 36 years (12), 25% more"
        );
        assert_eq!(formatted("['%c styled', 'color: red']"), " styled");
        assert_eq!(
            formatted("['no specifiers', 1, 'two']"),
            "no specifiers 1 two"
        );
        // A symbol is NaN to %d; a specifier with no argument left stays as it is.
        assert_eq!(formatted("['%d %d', Symbol('s')]"), "NaN %d");
        // One argument, or a first argument that is not a string: no formatting.
        assert_eq!(formatted("['100%s']"), "100%s");
        assert_eq!(formatted("[1, '%s']"), "1 %s");
        assert_eq!(formatted("['%f %d', 'Infinityx', -7.9]"), "Infinity -7");
        assert_eq!(formatted("[]"), "");
    }
}
