//! A strict JSON parser (ECMAScript's `JSON.parse` grammar, without a reviver) producing JS
//! values straight from a string's code units, for `json_parse` on Boa.
//!
//! Boa 0.22's `JSON.parse` checks the text with serde_json, then parses it as a script with its
//! JavaScript parser, compiles it to bytecode and runs it: about 8 MB/s (`json()` of a 1 MiB
//! body took 120 ms, 44 times Bun's). It also rejects a lone surrogate escape
//! (`JSON.parse('"\\ud83d"')` is a SyntaxError, "unexpected end of hex escape", where
//! ECMAScript makes it a one-code-unit string; WPT's `urltestdata-javascript-only.json` has
//! such escapes). Without a reviver, `JSON.parse` of a valid text runs no script and its value
//! is determined by the text: objects of the realm's `%Object.prototype%` with each member
//! defined in order by CreateDataProperty (a repeated name keeps its first place and its last
//! value; `"__proto__"` is an own property like any other), arrays by CreateArrayFromList,
//! strings of the literals' code units, numbers rounded to the nearest double. This parser
//! builds that value. A text it does not take (not JSON, or nested deeper than
//! [`MAX_DEPTH`]) goes to the realm's `JSON.parse`, which gives its SyntaxError.

use boa_engine::{
    builtins::object::OrdinaryObject,
    object::{builtins::JsArray, ObjectInitializer},
    property::PropertyDescriptor,
    string::JsStrVariant,
    Context, JsResult, JsString, JsValue,
};

/// Nesting deeper than this is left to `JSON.parse` (no stack overflow from input).
const MAX_DEPTH: usize = 512;

/// Parses `text` as a JSON text; `None` if this parser does not take it (see the module).
pub(super) fn parse(text: &boa_engine::JsString, ctx: &mut Context) -> Option<JsResult<JsValue>> {
    match text.as_str().variant() {
        JsStrVariant::Latin1(units) => Parser::new(units).text(ctx),
        JsStrVariant::Utf16(units) => Parser::new(units).text(ctx),
    }
}

/// A code unit of a string (Boa stores Latin-1 strings one byte per unit).
trait Unit: Copy {
    fn unit(self) -> u16;
    /// A string of these units.
    fn string(units: &[Self]) -> JsString;
}

impl Unit for u8 {
    fn unit(self) -> u16 {
        u16::from(self)
    }
    fn string(units: &[u8]) -> JsString {
        JsString::from(boa_engine::string::JsStr::latin1(units))
    }
}

impl Unit for u16 {
    fn unit(self) -> u16 {
        self
    }
    fn string(units: &[u16]) -> JsString {
        JsString::from(units)
    }
}

struct Parser<'a, U> {
    units: &'a [U],
    at: usize,
    /// Member names met, by a hash of their units ([`Parser::key`]).
    keys: [Option<JsString>; KEY_CACHE],
}

/// How many member names [`Parser::key`] remembers.
const KEY_CACHE: usize = 64;

/// The longest member name [`Parser::key`] remembers, in units.
const KEY_CACHE_LONGEST: usize = 32;

impl<'a, U: Unit> Parser<'a, U> {
    fn new(units: &'a [U]) -> Self {
        Self {
            units,
            at: 0,
            keys: std::array::from_fn(|_| None),
        }
    }

    /// The whole text: one value between optional whitespace.
    fn text(mut self, ctx: &mut Context) -> Option<JsResult<JsValue>> {
        self.skip_whitespace();
        let value = self.value(ctx, 0)?;
        self.skip_whitespace();
        (self.at == self.units.len()).then_some(value)
    }

    fn peek(&self) -> Option<u16> {
        self.units.get(self.at).map(|u| u.unit())
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(0x20 | 0x09 | 0x0A | 0x0D)) {
            self.at += 1;
        }
    }

    fn eat(&mut self, literal: &[u8]) -> Option<()> {
        for &byte in literal {
            if self.peek()? != u16::from(byte) {
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
            b'"' => Some(Ok(JsValue::from(self.string()?))),
            b't' => self.eat(b"true").map(|()| Ok(JsValue::from(true))),
            b'f' => self.eat(b"false").map(|()| Ok(JsValue::from(false))),
            b'n' => self.eat(b"null").map(|()| Ok(JsValue::null())),
            b'-' | b'0'..=b'9' => self.number().map(|n| Ok(JsValue::from(n))),
            _ => None,
        }
    }

    fn object(&mut self, ctx: &mut Context, depth: usize) -> Option<JsResult<JsValue>> {
        self.at += 1;
        // An ordinary object of %Object.prototype%, of the realm's shared shapes (as an
        // object literal's: members add shape transitions, not a table of their own).
        let object = ObjectInitializer::with_native_data(OrdinaryObject, ctx).build();
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
            let key = self.key()?;
            self.skip_whitespace();
            self.eat(b":")?;
            self.skip_whitespace();
            let value = match self.value(ctx, depth + 1)? {
                Ok(value) => value,
                Err(error) => return Some(Err(error)),
            };
            // CreateDataProperty(object, key, value): on this new, extensible ordinary object,
            // whose every property is such a data property, it adds the property, or for a
            // repeated name replaces the value in place. Inserted as is (no descriptor
            // validation to run).
            object.insert_property(
                key,
                PropertyDescriptor::builder()
                    .value(value)
                    .writable(true)
                    .enumerable(true)
                    .configurable(true),
            );
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

    /// A member name: as [`Parser::string`], the same string again for a name met recently
    /// (a JSON array of objects repeats its names in every element), found before a new one
    /// is made.
    fn key(&mut self) -> Option<JsString> {
        let start = self.at + 1;
        let mut end = start;
        // The literal, when it has no escape and is short enough to remember.
        loop {
            match self.units.get(end)?.unit() {
                0x22 => break,
                0x00..=0x1F => return None,
                0x5C => return self.string(),
                _ if end - start == KEY_CACHE_LONGEST => return self.string(),
                _ => end += 1,
            }
        }
        let literal = self.units.get(start..end)?;
        let hash = literal.iter().fold(0u32, |h, u| {
            h.wrapping_mul(31).wrapping_add(u32::from(u.unit()))
        });
        let entry = &mut self.keys[hash as usize % KEY_CACHE];
        self.at = end + 1;
        if let Some(cached) = entry {
            let units = cached.as_str();
            if units.len() == literal.len() && units.iter().zip(literal).all(|(a, b)| a == b.unit())
            {
                return Some(cached.clone());
            }
        }
        let string = U::string(literal);
        *entry = Some(string.clone());
        Some(string)
    }

    /// A string literal's value (escapes decoded; a `\u` escape may be a lone surrogate). A
    /// literal without escapes is made from its units where they are.
    fn string(&mut self) -> Option<JsString> {
        self.at += 1;
        let start = self.at;
        loop {
            match self.peek()? {
                0x22 => {
                    let string = U::string(self.units.get(start..self.at)?);
                    self.at += 1;
                    return Some(string);
                }
                0x5C => break,
                0x00..=0x1F => return None,
                _ => self.at += 1,
            }
        }
        // An escape: the units so far, then the rest decoded one by one.
        let mut out: Vec<u16> = self
            .units
            .get(start..self.at)?
            .iter()
            .map(|u| u.unit())
            .collect();
        loop {
            let unit = self.peek()?;
            self.at += 1;
            match unit {
                0x22 => return Some(JsString::from(out.as_slice())),
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
                            let mut code = 0u16;
                            for _ in 0..4 {
                                let digit =
                                    char::from_u32(u32::from(self.peek()?))?.to_digit(16)?;
                                // Four hex digits fit in 16 bits.
                                code = (code << 4) | digit as u16;
                                self.at += 1;
                            }
                            code
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

    /// A number literal's value, rounded to the nearest double.
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        let digit = |u: Option<u16>| u.is_some_and(|u| (0x30..=0x39).contains(&u));
        let negative = self.peek() == Some(u16::from(b'-'));
        if negative {
            self.at += 1;
        }
        // The integer part, its value kept while it is exact (up to 15 digits).
        let mut integer = 0u64;
        let digits_start = self.at;
        match self.peek()? {
            0x30 => self.at += 1,
            0x31..=0x39 => {
                while let Some(u @ 0x30..=0x39) = self.peek() {
                    integer = integer.wrapping_mul(10).wrapping_add(u64::from(u - 0x30));
                    self.at += 1;
                }
            }
            _ => return None,
        }
        let integer_digits = self.at - digits_start;
        let mut plain = true;
        if self.peek() == Some(u16::from(b'.')) {
            plain = false;
            self.at += 1;
            if !digit(self.peek()) {
                return None;
            }
            while digit(self.peek()) {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            plain = false;
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
        if plain && integer_digits <= 15 {
            // Below 10^15 < 2^53: exact as a double (and -0 for "-0").
            let value = integer as f64;
            return Some(if negative { -value } else { value });
        }
        // The literal is ASCII: Rust's parser rounds it correctly.
        let literal: String = self
            .units
            .get(start..self.at)?
            .iter()
            .map(|u| char::from(u.unit() as u8))
            .collect();
        literal.parse().ok()
    }
}
