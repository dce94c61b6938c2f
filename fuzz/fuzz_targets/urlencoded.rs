//! `application/x-www-form-urlencoded`: parsing any bytes does not panic, and the serialization
//! of what it parsed parses back to the same name-value pairs.
#![no_main]

use boa_streams::fuzzing::urlencoded::{
    application_x_www_form_urlencoded_parser, application_x_www_form_urlencoded_serializer,
    percent_decode,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let tuples = application_x_www_form_urlencoded_parser(data);
    let serialized = application_x_www_form_urlencoded_serializer(&tuples);
    assert_eq!(
        application_x_www_form_urlencoded_parser(serialized.as_bytes()),
        tuples,
        "{serialized:?}"
    );
    let _ = percent_decode(data);
});
