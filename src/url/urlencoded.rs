//! The URL Standard's [percent-encoded bytes](https://url.spec.whatwg.org/#percent-encoded-bytes)
//! (the percent-encode sets, percent-encode and percent-decode) and its
//! [application/x-www-form-urlencoded](https://url.spec.whatwg.org/#application/x-www-form-urlencoded)
//! parser and serializer.
//!
//! Only UTF-8 is supported as the serializer's encoding: the encoding override that HTML form
//! submission passes is not (no caller here has one).

/// A [percent-encode set](https://url.spec.whatwg.org/#percent-encoded-bytes): a set of ASCII
/// code points, plus every code point above U+007F (all sets contain those).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PercentEncodeSet {
    ascii: u128,
}

impl PercentEncodeSet {
    /// This set with `c` (an ASCII code point) added.
    const fn with(self, c: u8) -> Self {
        Self {
            ascii: self.ascii | (1u128 << (c & 0x7F)),
        }
    }

    /// This set with `first..=last` (ASCII code points) added.
    const fn with_range(self, first: u8, last: u8) -> Self {
        let mut set = self;
        let mut c = first;
        while c <= last {
            set = set.with(c);
            c += 1;
        }
        set
    }

    /// Whether the code point of value `byte` is in this set.
    pub const fn contains(&self, byte: u8) -> bool {
        byte >= 0x80 || self.ascii & (1u128 << byte) != 0
    }
}

/// The [C0 control percent-encode set](https://url.spec.whatwg.org/#c0-control-percent-encode-set):
/// the C0 controls and all code points greater than U+007E (~).
pub const C0_CONTROL_PERCENT_ENCODE_SET: PercentEncodeSet = PercentEncodeSet { ascii: 0 }
    .with_range(0x00, 0x1F)
    .with(0x7F);

/// The [fragment percent-encode set](https://url.spec.whatwg.org/#fragment-percent-encode-set).
pub const FRAGMENT_PERCENT_ENCODE_SET: PercentEncodeSet = C0_CONTROL_PERCENT_ENCODE_SET
    .with(b' ')
    .with(b'"')
    .with(b'<')
    .with(b'>')
    .with(b'`');

/// The [query percent-encode set](https://url.spec.whatwg.org/#query-percent-encode-set).
pub const QUERY_PERCENT_ENCODE_SET: PercentEncodeSet = C0_CONTROL_PERCENT_ENCODE_SET
    .with(b' ')
    .with(b'"')
    .with(b'#')
    .with(b'<')
    .with(b'>');

/// The [special-query percent-encode set](https://url.spec.whatwg.org/#special-query-percent-encode-set).
pub const SPECIAL_QUERY_PERCENT_ENCODE_SET: PercentEncodeSet = QUERY_PERCENT_ENCODE_SET.with(b'\'');

/// The [path percent-encode set](https://url.spec.whatwg.org/#path-percent-encode-set).
pub const PATH_PERCENT_ENCODE_SET: PercentEncodeSet = QUERY_PERCENT_ENCODE_SET
    .with(b'?')
    .with(b'^')
    .with(b'`')
    .with(b'{')
    .with(b'}');

/// The [userinfo percent-encode set](https://url.spec.whatwg.org/#userinfo-percent-encode-set).
pub const USERINFO_PERCENT_ENCODE_SET: PercentEncodeSet = PATH_PERCENT_ENCODE_SET
    .with(b'/')
    .with(b':')
    .with(b';')
    .with(b'=')
    .with(b'@')
    .with_range(b'[', b'^')
    .with(b'|');

/// The [component percent-encode set](https://url.spec.whatwg.org/#component-percent-encode-set).
pub const COMPONENT_PERCENT_ENCODE_SET: PercentEncodeSet = USERINFO_PERCENT_ENCODE_SET
    .with_range(b'$', b'&')
    .with(b'+')
    .with(b',');

/// The [application/x-www-form-urlencoded percent-encode
/// set](https://url.spec.whatwg.org/#application-x-www-form-urlencoded-percent-encode-set):
/// everything but ASCII alphanumerics, `*`, `-`, `.` and `_`.
pub const APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET: PercentEncodeSet =
    COMPONENT_PERCENT_ENCODE_SET
        .with(b'!')
        .with_range(b'\'', b')')
        .with(b'~');

/// [Percent-encode](https://url.spec.whatwg.org/#percent-encode) a byte: "%" followed by two
/// uppercase hex digits.
pub fn percent_encode(byte: u8, output: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    output.push('%');
    output.push(char::from(HEX[usize::from(byte >> 4)]));
    output.push(char::from(HEX[usize::from(byte & 0xF)]));
}

/// The value of an ASCII hex digit.
fn hex_value(byte: u8) -> Option<u8> {
    char::from(byte).to_digit(16).map(|d| d as u8)
}

/// [Percent-decode](https://url.spec.whatwg.org/#percent-decode) a byte sequence: `%XX` with two
/// ASCII hex digits becomes that byte; any other `%` stays.
pub fn percent_decode(input: &[u8]) -> Vec<u8> {
    // 1. Let output be an empty byte sequence.
    let mut output = Vec::with_capacity(input.len());
    // 2. For each byte byte in input:
    let mut i = 0;
    while let Some(&byte) = input.get(i) {
        // 1. If byte is not 0x25 (%), then append byte to output.
        // 2. Otherwise, if the next two bytes are not both ASCII hex digits, append byte.
        // 3. Otherwise: append the byte the two hex digits spell, and skip them.
        let escaped = (byte == b'%')
            .then(|| Some(hex_value(*input.get(i + 1)?)? << 4 | hex_value(*input.get(i + 2)?)?))
            .flatten();
        match escaped {
            Some(decoded) => {
                output.push(decoded);
                i += 3;
            }
            None => {
                output.push(byte);
                i += 1;
            }
        }
    }
    // 3. Return output.
    output
}

/// [Percent-decode a string](https://url.spec.whatwg.org/#string-percent-decode): its UTF-8
/// encoding, percent-decoded.
pub fn percent_decode_string(input: &str) -> Vec<u8> {
    // 1. Let bytes be the UTF-8 encoding of input.
    // 2. Return the percent-decoding of bytes.
    percent_decode(input.as_bytes())
}

/// [Percent-encode after encoding](https://url.spec.whatwg.org/#string-percent-encode-after-encoding)
/// with UTF-8 (the only encoding supported here): each byte of `input`'s UTF-8 encoding that is
/// in `percent_encode_set` is percent-encoded, and with `space_as_plus` 0x20 becomes "+".
pub fn percent_encode_after_encoding(
    input: &str,
    percent_encode_set: PercentEncodeSet,
    space_as_plus: bool,
) -> String {
    // 1.-3. The encoder and the input queue: UTF-8, which maps every scalar value.
    // 4. Let output be the empty string.
    let mut output = String::with_capacity(input.len());
    // 5.-6. For each byte of the encoded input:
    for &byte in input.as_bytes() {
        // 1. If spaceAsPlus is true and byte is 0x20 (SP), append U+002B (+) and continue.
        if space_as_plus && byte == b' ' {
            output.push('+');
            continue;
        }
        // 2. Let isomorph be a code point whose value is byte's value.
        // 3. Assert: percentEncodeSet includes all non-ASCII code points.
        // 4. If isomorph is not in percentEncodeSet, then append isomorph to output.
        // 5. Otherwise, percent-encode byte and append the result to output.
        if percent_encode_set.contains(byte) {
            percent_encode(byte, &mut output);
        } else {
            output.push(char::from(byte));
        }
    }
    // 7. Return output.
    output
}

/// [UTF-8 percent-encode](https://url.spec.whatwg.org/#string-utf-8-percent-encode) a string
/// using a percent-encode set.
pub fn utf8_percent_encode(input: &str, percent_encode_set: PercentEncodeSet) -> String {
    percent_encode_after_encoding(input, percent_encode_set, false)
}

/// The [application/x-www-form-urlencoded
/// parser](https://url.spec.whatwg.org/#concept-urlencoded-parser): `&`-separated `name=value`
/// pairs, "+" as space, percent-decoded, then UTF-8 decoded without BOM (invalid sequences
/// become U+FFFD).
pub fn application_x_www_form_urlencoded_parser(input: &[u8]) -> Vec<(String, String)> {
    // 1. Let sequences be the result of splitting input on 0x26 (&).
    // 2. Let output be an initially empty list of name-value tuples.
    let mut output = Vec::new();
    // 3. For each byte sequence bytes in sequences:
    for bytes in input.split(|&b| b == b'&') {
        // 1. If bytes is the empty byte sequence, then continue.
        if bytes.is_empty() {
            continue;
        }
        // 2. If bytes contains a 0x3D (=), then name is the bytes before the first one and
        //    value the bytes after it.
        // 3. Otherwise, name is bytes and value is the empty byte sequence.
        let (name, value) = match bytes.iter().position(|&b| b == b'=') {
            Some(i) => (&bytes[..i], &bytes[i + 1..]),
            None => (bytes, &[][..]),
        };
        // 4. Replace any 0x2B (+) in name and value with 0x20 (SP).
        // 5. Let nameString and valueString be the result of running UTF-8 decode without BOM
        //    on the percent-decoding of name and value, respectively.
        let decode = |bytes: &[u8]| {
            let plus_as_space: Vec<u8> = bytes
                .iter()
                .map(|&b| if b == b'+' { b' ' } else { b })
                .collect();
            String::from_utf8_lossy(&percent_decode(&plus_as_space)).into_owned()
        };
        // 6. Append (nameString, valueString) to output.
        output.push((decode(name), decode(value)));
    }
    // 4. Return output.
    output
}

/// The [application/x-www-form-urlencoded
/// serializer](https://url.spec.whatwg.org/#concept-urlencoded-serializer), with UTF-8.
pub fn application_x_www_form_urlencoded_serializer<N, V>(tuples: &[(N, V)]) -> String
where
    N: AsRef<str>,
    V: AsRef<str>,
{
    // 1.-2. Let encoding be UTF-8 (no encoding override here).
    // 3. Let output be the empty string.
    let mut output = String::new();
    // 4. For each tuple of tuples:
    for (name, value) in tuples {
        // 1. Assert: tuple's name and value are scalar value strings (a Rust string is one).
        // 2. Let name be the result of running percent-encode after encoding with encoding,
        //    tuple's name, the application/x-www-form-urlencoded percent-encode set, and true.
        let name = percent_encode_after_encoding(
            name.as_ref(),
            APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET,
            true,
        );
        // 3. Let value be the same for tuple's value.
        let value = percent_encode_after_encoding(
            value.as_ref(),
            APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET,
            true,
        );
        // 4. If output is not the empty string, then append U+0026 (&) to output.
        if !output.is_empty() {
            output.push('&');
        }
        // 5. Append name, followed by U+003D (=), followed by value, to output.
        output.push_str(&name);
        output.push('=');
        output.push_str(&value);
    }
    // 5. Return output.
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(set: PercentEncodeSet) -> String {
        (0x20u8..0x7F)
            .filter(|&b| set.contains(b))
            .map(char::from)
            .collect()
    }

    #[test]
    fn percent_encode_sets_are_the_url_standards() {
        for set in [
            C0_CONTROL_PERCENT_ENCODE_SET,
            FRAGMENT_PERCENT_ENCODE_SET,
            APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET,
        ] {
            assert!((0x00..=0x1F).all(|b| set.contains(b)));
            assert!(set.contains(0x7F) && set.contains(0x80) && set.contains(0xFF));
        }
        assert_eq!(members(C0_CONTROL_PERCENT_ENCODE_SET), "");
        assert_eq!(members(FRAGMENT_PERCENT_ENCODE_SET), " \"<>`");
        assert_eq!(members(QUERY_PERCENT_ENCODE_SET), " \"#<>");
        assert_eq!(members(SPECIAL_QUERY_PERCENT_ENCODE_SET), " \"#'<>");
        assert_eq!(members(PATH_PERCENT_ENCODE_SET), " \"#<>?^`{}");
        assert_eq!(
            members(USERINFO_PERCENT_ENCODE_SET),
            " \"#/:;<=>?@[\\]^`{|}"
        );
        assert_eq!(
            members(COMPONENT_PERCENT_ENCODE_SET),
            " \"#$%&+,/:;<=>?@[\\]^`{|}"
        );
        // The urlencoded set leaves only ASCII alphanumerics, *, -, . and _.
        let left: String = (0x00u8..0x80)
            .filter(|&b| !APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET.contains(b))
            .map(char::from)
            .collect();
        assert_eq!(
            left,
            "*-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
        );
    }

    #[test]
    fn percent_decode_keeps_malformed_escapes() {
        assert_eq!(percent_decode(b"%25%s%1G"), b"%%s%1G");
        assert_eq!(percent_decode(b"%41%6a%6A"), b"Ajj");
        assert_eq!(percent_decode(b"%"), b"%");
        assert_eq!(percent_decode(b"%4"), b"%4");
        assert_eq!(percent_decode(b"a%%41"), b"a%A");
        assert_eq!(percent_decode(b"%FF%00"), [0xFF, 0x00]);
        assert_eq!(percent_decode_string("‽%25%2E"), "‽%.".as_bytes());
    }

    #[test]
    fn percent_encode_after_encoding_examples() {
        // The table under "percent-encode after encoding" in the URL Standard (UTF-8 rows).
        assert_eq!(
            percent_encode_after_encoding(
                "Say what My name is",
                APPLICATION_X_WWW_FORM_URLENCODED_PERCENT_ENCODE_SET,
                true
            ),
            "Say+what+My+name+is"
        );
        assert_eq!(utf8_percent_encode(" ", USERINFO_PERCENT_ENCODE_SET), "%20");
        assert_eq!(
            utf8_percent_encode("≡", USERINFO_PERCENT_ENCODE_SET),
            "%E2%89%A1"
        );
        assert_eq!(
            utf8_percent_encode("‽", USERINFO_PERCENT_ENCODE_SET),
            "%E2%80%BD"
        );
        assert_eq!(
            utf8_percent_encode("Say what‽", USERINFO_PERCENT_ENCODE_SET),
            "Say%20what%E2%80%BD"
        );
        assert_eq!(utf8_percent_encode("a+b", QUERY_PERCENT_ENCODE_SET), "a+b");
    }

    fn parse(input: &str) -> Vec<(String, String)> {
        application_x_www_form_urlencoded_parser(input.as_bytes())
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn parser_cases() {
        // Cases of the kind WPT's url/urlencoded-parser.any.js lists.
        assert_eq!(parse("test"), pairs(&[("test", "")]));
        assert_eq!(
            parse("\u{FEFF}test=\u{FEFF}"),
            pairs(&[("\u{FEFF}test", "\u{FEFF}")])
        );
        assert_eq!(
            parse("%EF%BB%BFtest=%EF%BB%BF"),
            pairs(&[("\u{FEFF}test", "\u{FEFF}")])
        );
        assert_eq!(parse("%FE%FF"), pairs(&[("\u{FFFD}\u{FFFD}", "")]));
        assert_eq!(parse("%FF%FE"), pairs(&[("\u{FFFD}\u{FFFD}", "")]));
        assert_eq!(parse("†&†=x"), pairs(&[("†", ""), ("†", "x")]));
        assert_eq!(parse("%C2"), pairs(&[("\u{FFFD}", "")]));
        assert_eq!(parse("%C2x"), pairs(&[("\u{FFFD}x", "")]));
        assert_eq!(
            parse("_charset_=windows-1252&test=%C2x"),
            pairs(&[("_charset_", "windows-1252"), ("test", "\u{FFFD}x")])
        );
        assert_eq!(parse(""), pairs(&[]));
        assert_eq!(parse("a"), pairs(&[("a", "")]));
        assert_eq!(parse("a=b"), pairs(&[("a", "b")]));
        assert_eq!(parse("a=b=c"), pairs(&[("a", "b=c")]));
        assert_eq!(parse("=b"), pairs(&[("", "b")]));
        assert_eq!(parse("="), pairs(&[("", "")]));
        assert_eq!(parse("&&a&&=&"), pairs(&[("a", ""), ("", "")]));
        assert_eq!(parse("a+b=c+d%2B"), pairs(&[("a b", "c d+")]));
        assert_eq!(parse("a%20b=%2"), pairs(&[("a b", "%2")]));
        assert_eq!(parse("%e2%80%bd=1"), pairs(&[("‽", "1")]));
        // An overlong or surrogate encoding: one U+FFFD per maximal subpart.
        assert_eq!(parse("%C0%80"), pairs(&[("\u{FFFD}\u{FFFD}", "")]));
        assert_eq!(
            parse("%ED%A0%80"),
            pairs(&[("\u{FFFD}\u{FFFD}\u{FFFD}", "")])
        );
        assert_eq!(parse("%F0%9F%98"), pairs(&[("\u{FFFD}", "")]));
        assert_eq!(
            application_x_www_form_urlencoded_parser(b"a=\xFF"),
            pairs(&[("a", "\u{FFFD}")])
        );
    }

    #[test]
    fn serializer_encodes_with_the_urlencoded_set() {
        assert_eq!(
            application_x_www_form_urlencoded_serializer::<&str, &str>(&[]),
            ""
        );
        assert_eq!(
            application_x_www_form_urlencoded_serializer(&[("a b", "c+d"), ("é", "*-._~!")]),
            "a+b=c%2Bd&%C3%A9=*-._%7E%21"
        );
        assert_eq!(
            application_x_www_form_urlencoded_serializer(&[("", ""), ("\n", "&=")]),
            "=&%0A=%26%3D"
        );
        // Round trip.
        let tuples = pairs(&[("a b&c", "d=e+f%"), ("", "‽\u{0}")]);
        let text = application_x_www_form_urlencoded_serializer(&tuples);
        assert_eq!(
            application_x_www_form_urlencoded_parser(text.as_bytes()),
            tuples
        );
    }
}
