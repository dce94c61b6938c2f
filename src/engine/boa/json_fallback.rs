//! A strict JSON parser (ECMAScript's `JSON.parse` grammar, without a reviver) producing JS
//! values: `json_parse` falls back to it when Boa 0.22's `JSON.parse` rejects a text with a
//! lone surrogate escape (`JSON.parse('"\\ud83d"')` is a SyntaxError in Boa 0.22, "unexpected
//! end of hex escape"; ECMAScript makes it a one-code-unit string). WPT's
//! `url/resources/urltestdata-javascript-only.json` has such escapes.

use boa_engine::{object::builtins::JsArray, Context, JsObject, JsResult, JsString, JsValue};

/// Whether `text` has a `\u` escape of a surrogate code unit (`\uD800` to `\uDFFF`): the
/// only case where the fallback is tried.
pub(super) fn has_surrogate_escape(text: &str) -> bool {
    text.match_indices("\\u").any(|(i, _)| {
        let digits = text.get(i + 2..i + 6).unwrap_or("");
        u16::from_str_radix(digits, 16).is_ok_and(|u| (0xD800..=0xDFFF).contains(&u))
    })
}

/// Parses `text` (UTF-16 code units); `None` if it is not JSON.
pub(super) fn parse(text: &[u16], ctx: &mut Context) -> Option<JsResult<JsValue>> {
    let mut parser = Parser {
        units: text.to_vec(),
        at: 0,
    };
    parser.skip_whitespace();
    let value = parser.value(ctx, 0)?;
    parser.skip_whitespace();
    (parser.at == parser.units.len()).then_some(value)
}

struct Parser {
    units: Vec<u16>,
    at: usize,
}

/// Nesting deeper than this is refused (no stack overflow from input).
const MAX_DEPTH: usize = 512;

impl Parser {
    fn peek(&self) -> Option<u16> {
        self.units.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(0x20 | 0x09 | 0x0A | 0x0D)) {
            self.at += 1;
        }
    }

    fn eat(&mut self, literal: &str) -> Option<()> {
        for unit in literal.encode_utf16() {
            if self.peek()? != unit {
                return None;
            }
            self.at += 1;
        }
        Some(())
    }

    fn value(&mut self, ctx: &mut Context, depth: usize) -> Option<JsResult<JsValue>> {
        if depth > MAX_DEPTH {
            return None;
        }
        match u8::try_from(self.peek()?).ok()? {
            b'{' => self.object(ctx, depth),
            b'[' => self.array(ctx, depth),
            b'"' => Some(Ok(JsValue::from(JsString::from(self.string()?.as_slice())))),
            b't' => self.eat("true").map(|()| Ok(JsValue::from(true))),
            b'f' => self.eat("false").map(|()| Ok(JsValue::from(false))),
            b'n' => self.eat("null").map(|()| Ok(JsValue::null())),
            b'-' | b'0'..=b'9' => self.number().map(|n| Ok(JsValue::from(n))),
            _ => None,
        }
    }

    fn object(&mut self, ctx: &mut Context, depth: usize) -> Option<JsResult<JsValue>> {
        self.at += 1;
        let object = JsObject::with_object_proto(ctx.intrinsics());
        self.skip_whitespace();
        if self.peek()? == u16::from(b'}') {
            self.at += 1;
            return Some(Ok(object.into()));
        }
        loop {
            self.skip_whitespace();
            if self.peek()? != u16::from(b'"') {
                return None;
            }
            let key = JsString::from(self.string()?.as_slice());
            self.skip_whitespace();
            self.eat(":")?;
            self.skip_whitespace();
            let value = match self.value(ctx, depth + 1)? {
                Ok(value) => value,
                Err(error) => return Some(Err(error)),
            };
            if let Err(error) = object.create_data_property_or_throw(key, value, ctx) {
                return Some(Err(error));
            }
            self.skip_whitespace();
            match u8::try_from(self.peek()?).ok()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Ok(object.into()));
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, ctx: &mut Context, depth: usize) -> Option<JsResult<JsValue>> {
        self.at += 1;
        let mut values = Vec::new();
        self.skip_whitespace();
        if self.peek()? == u16::from(b']') {
            self.at += 1;
            return Some(Ok(JsArray::from_iter(values, ctx).into()));
        }
        loop {
            self.skip_whitespace();
            match self.value(ctx, depth + 1)? {
                Ok(value) => values.push(value),
                Err(error) => return Some(Err(error)),
            }
            self.skip_whitespace();
            match u8::try_from(self.peek()?).ok()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Ok(JsArray::from_iter(values, ctx).into()));
                }
                _ => return None,
            }
        }
    }

    /// A string literal's code units (escapes decoded; a `\u` escape may be a lone surrogate).
    fn string(&mut self) -> Option<Vec<u16>> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let unit = self.peek()?;
            self.at += 1;
            match unit {
                0x22 => return Some(out),
                0x5C => {
                    let escape = u8::try_from(self.peek()?).ok()?;
                    self.at += 1;
                    let decoded = match escape {
                        b'"' => 0x22,
                        b'\\' => 0x5C,
                        b'/' => 0x2F,
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => 0x0A,
                        b'r' => 0x0D,
                        b't' => 0x09,
                        b'u' => {
                            let digits = self.units.get(self.at..self.at + 4)?;
                            let digits = String::from_utf16(digits).ok()?;
                            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                                return None;
                            }
                            self.at += 4;
                            u16::from_str_radix(&digits, 16).ok()?
                        }
                        _ => return None,
                    };
                    out.push(decoded);
                }
                0x00..=0x1F => return None,
                unit => out.push(unit),
            }
        }
    }

    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        let digit = |u: Option<u16>| u.is_some_and(|u| (0x30..=0x39).contains(&u));
        if self.peek() == Some(u16::from(b'-')) {
            self.at += 1;
        }
        match self.peek()? {
            0x30 => self.at += 1,
            0x31..=0x39 => {
                while digit(self.peek()) {
                    self.at += 1;
                }
            }
            _ => return None,
        }
        if self.peek() == Some(u16::from(b'.')) {
            self.at += 1;
            if !digit(self.peek()) {
                return None;
            }
            while digit(self.peek()) {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            self.at += 1;
            if matches!(self.peek(), Some(0x2B | 0x2D)) {
                self.at += 1;
            }
            if !digit(self.peek()) {
                return None;
            }
            while digit(self.peek()) {
                self.at += 1;
            }
        }
        String::from_utf16(&self.units[start..self.at])
            .ok()?
            .parse()
            .ok()
    }
}
