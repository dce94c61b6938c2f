//! The `stream-diff` command: see `stream-diff --help`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(stream_diff::main_with_args(&args));
}
