//! Header values and lists: normalizing is idempotent and gives a header value when the input
//! has no NUL or newline; a header list takes any name and value, and reads back what it holds.
#![no_main]

use boa_streams::fuzzing::headers::{is_header_name, is_header_value, normalize, HeaderList};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let normalized = normalize(data);
    assert_eq!(normalize(normalized), normalized, "normalize is idempotent");
    if !data.iter().any(|b| matches!(b, 0 | b'\r' | b'\n')) {
        assert!(is_header_value(normalized), "{normalized:?}");
    }
    // Split into a name and a value at the first ':'.
    let (name, value) = match data.iter().position(|&b| b == b':') {
        Some(i) => (&data[..i], normalize(&data[i + 1..])),
        None => return,
    };
    if !is_header_name(name) || !is_header_value(value) {
        return;
    }
    let mut list = HeaderList::new();
    list.append((name.to_vec(), value.to_vec()));
    list.append((name.to_ascii_uppercase(), value.to_vec()));
    assert!(list.contains(&name.to_ascii_lowercase()));
    let combined = list.get(name).expect("the header is there");
    assert!(combined.starts_with(value));
    let _ = list.get_decode_and_split(name);
    let _ = list.sort_and_combine();
    list.delete(name);
    assert!(!list.contains(name));
});
