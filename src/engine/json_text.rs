//! "Parse JSON bytes to a JavaScript value" (<https://infra.spec.whatwg.org/#parse-json-bytes-to-a-javascript-value>:
//! UTF-8 decode, then `? Call(%JSON.parse%, undefined, « string »)`) in one pass over the
//! bytes, for the Fetch Standard's `json()`. Written over the contract's names.
//!
//! AD-HOC: without a reviver, `JSON.parse` of a valid text runs no script, and its value is
//! determined by the text: objects of the current realm's `%Object.prototype%` with each member
//! defined in order by CreateDataProperty (a repeated name keeps its first place and its last
//! value; `"__proto__"` is an own property like any other), arrays by CreateArrayFromList,
//! strings of the literals' code units, numbers rounded to the nearest double. This parser
//! builds that value from the UTF-8 bytes: the structure of a JSON text is ASCII, and
//! decoding each string literal's bytes apart gives what decoding the whole text gives (a
//! decoder never takes an ASCII byte into a sequence, so a quote ends any error before it).
//! A text it does not take (not JSON, or nested deeper than [`MAX_DEPTH`]) is left to the
//! caller, which decodes it and calls `%JSON.parse%` for its SyntaxError.
//!
//! Why: Boa 0.22's `JSON.parse` compiles the text as a script and runs it (about 8 MB/s), and
//! rejects a lone surrogate escape and a number past the largest double, which ECMAScript
//! accepts; QuickJS's converts the string back to UTF-8 and makes an atom per member name.
//! Here the names of a JSON array of objects, repeated in every element, are made once
//! ([`engine::JsonName`]), and objects are built the way the engine builds object literals
//! ([`engine::json_object`]).

use crate::engine::{self, Cx, JsResult, JsonName, Object, Value};

/// Nesting deeper than this is left to `%JSON.parse%` (no stack overflow from input).
const MAX_DEPTH: usize = 512;

/// How many member names a parse remembers.
const NAMES: usize = 64;

/// The longest member name a parse remembers, in bytes.
const NAME_LONGEST: usize = 32;

/// The most sequences of member names a parse keeps the shapes of ([`Parser::shape_anchors`]).
const ANCHORED_SEQUENCES: usize = 16;

/// The most members of an object whose shapes a parse keeps.
const ANCHORED_MEMBERS: usize = 16;

/// The value of the JSON text `bytes` (UTF-8, its byte order mark, if any, already removed),
/// or `None` when this parser does not take it (see the module).
pub(crate) fn parse_json_utf8(bytes: &[u8], ctx: &mut Cx) -> Option<JsResult<Value>> {
    let mut parser = Parser {
        bytes,
        at: 0,
        names: std::array::from_fn(|_| None),
        members: Vec::new(),
        shape_anchors: Vec::new(),
        anchored: Vec::new(),
    };
    parser.skip_whitespace();
    let value = parser.value(ctx, 0)?;
    parser.skip_whitespace();
    (parser.at == bytes.len()).then_some(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Member names met, by a hash of their literal's bytes, with those bytes.
    names: [Option<(Box<[u8]>, JsonName)>; NAMES],
    /// The member names (with their literals' hashes) of the objects being built, innermost
    /// last, while their shapes may still be anchored.
    members: Vec<(u32, JsonName)>,
    /// For each sequence of member names anchored, one object with each of its proper,
    /// non-empty prefixes as its members, kept for the parse. QuickJS keeps a shape only while
    /// an object has it (Boa's transitions to a shape last until a collection): without these,
    /// every object of an array of like objects would make and free again the shapes between
    /// its first member and its last. They are never seen by script.
    shape_anchors: Vec<Object>,
    /// The sequences anchored, as their names' hashes.
    anchored: Vec<Vec<u32>>,
}

/// The bytes of a string literal, between its quotes.
enum Literal<'a> {
    /// No escape: the bytes as they are (UTF-8, perhaps with errors).
    Plain(&'a [u8]),
    /// With escapes: the code units they decode to.
    Escaped(Vec<u16>),
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, literal: &[u8]) -> Option<()> {
        let end = self.at.checked_add(literal.len())?;
        (self.bytes.get(self.at..end)? == literal).then(|| self.at = end)
    }

    fn value(&mut self, ctx: &mut Cx, depth: usize) -> Option<JsResult<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => self.object(ctx, depth),
            b'[' => self.array(ctx, depth),
            b'"' => Some(match self.literal()? {
                Literal::Plain(bytes) => plain_string_value(bytes, ctx),
                Literal::Escaped(units) => engine::string_value_from_utf16(&units, ctx),
            }),
            b't' => self.eat(b"true").map(|()| Ok(Value::from(true))),
            b'f' => self.eat(b"false").map(|()| Ok(Value::from(false))),
            b'n' => self.eat(b"null").map(|()| Ok(Value::null())),
            b'-' | b'0'..=b'9' => self.number().map(|n| Ok(Value::from(n))),
            _ => None,
        }
    }

    fn object(&mut self, ctx: &mut Cx, depth: usize) -> Option<JsResult<Value>> {
        self.at += 1;
        let object = match engine::json_object(ctx) {
            Ok(object) => object,
            Err(error) => return Some(Err(error)),
        };
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(Ok(object.into()));
        }
        // Whether this object's names are kept for anchoring its shapes, from where.
        let mut anchoring = self.anchored.len() < ANCHORED_SEQUENCES;
        let base = self.members.len();
        loop {
            self.skip_whitespace();
            if self.peek()? != b'"' {
                return None;
            }
            let (name, hash) = match self.name(ctx)? {
                Ok(name) => name,
                Err(error) => return Some(Err(error)),
            };
            self.skip_whitespace();
            self.eat(b":")?;
            self.skip_whitespace();
            let value = match self.value(ctx, depth + 1)? {
                Ok(value) => value,
                Err(error) => return Some(Err(error)),
            };
            if let Err(error) = define(&object, &name, value, ctx) {
                return Some(Err(error));
            }
            if anchoring {
                match hash {
                    Some(hash) if self.members.len() - base < ANCHORED_MEMBERS => {
                        self.members.push((hash, name));
                    }
                    _ => anchoring = false,
                }
            }
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    let anchored = match anchoring {
                        true => self.anchor_shapes(base, ctx),
                        false => Ok(()),
                    };
                    self.members.truncate(base);
                    return Some(anchored.map(|()| object.into()));
                }
                _ => return None,
            }
        }
    }

    /// Keeps the shapes between the first and the last member of the object whose names are
    /// `members[base..]` ([`Parser::shape_anchors`]), unless its sequence of names already has
    /// them.
    fn anchor_shapes(&mut self, base: usize, ctx: &mut Cx) -> JsResult<()> {
        let members = self.members.get(base..).unwrap_or_default();
        if members.len() < 2 {
            return Ok(());
        }
        let anchored = self.anchored.iter().any(|hashes| {
            hashes.len() == members.len() && hashes.iter().zip(members).all(|(&a, &(b, _))| a == b)
        });
        if anchored {
            return Ok(());
        }
        let hashes: Vec<u32> = members.iter().map(|&(hash, _)| hash).collect();
        for end in 1..members.len() {
            let anchor = engine::json_object(ctx)?;
            for (_, name) in &members[..end] {
                define(&anchor, name, Value::undefined(), ctx)?;
            }
            self.shape_anchors.push(anchor);
        }
        self.anchored.push(hashes);
        Ok(())
    }

    fn array(&mut self, ctx: &mut Cx, depth: usize) -> Option<JsResult<Value>> {
        self.at += 1;
        let mut values = Vec::new();
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Ok(engine::create_array_from_list(values, ctx).into()));
        }
        loop {
            self.skip_whitespace();
            match self.value(ctx, depth + 1)? {
                Ok(value) => values.push(value),
                Err(error) => return Some(Err(error)),
            }
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Ok(engine::create_array_from_list(values, ctx).into()));
                }
                _ => return None,
            }
        }
    }

    /// A member name (at its opening quote): the same name again for a literal met recently
    /// (a JSON array of objects repeats its names in every element), with the hash of its
    /// literal where it is one of those remembered.
    fn name(&mut self, ctx: &mut Cx) -> Option<JsResult<(JsonName, Option<u32>)>> {
        let literal = match self.literal()? {
            Literal::Plain(bytes) => bytes,
            Literal::Escaped(units) => {
                return Some(JsonName::from_utf16(&units, ctx).map(|name| (name, None)))
            }
        };
        if literal.len() > NAME_LONGEST {
            return Some(plain_name(literal, ctx).map(|name| (name, None)));
        }
        let hash = literal
            .iter()
            .fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        let entry = &mut self.names[hash as usize % NAMES];
        if let Some((bytes, name)) = entry {
            if **bytes == *literal {
                return Some(Ok((name.duplicate(), Some(hash))));
            }
        }
        let name = match plain_name(literal, ctx) {
            Ok(name) => name,
            Err(error) => return Some(Err(error)),
        };
        *entry = Some((literal.into(), name.duplicate()));
        Some(Ok((name, Some(hash))))
    }

    /// A string literal (at its opening quote), past its closing quote; `None` when it is not
    /// one (a control character, a bad escape, no closing quote).
    fn literal(&mut self) -> Option<Literal<'a>> {
        self.at += 1;
        let start = self.at;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    let bytes: &'a [u8] = self.bytes;
                    return Some(Literal::Plain(bytes.get(start..self.at - 1)?));
                }
                b'\\' => break,
                0x00..=0x1F => return None,
                _ => self.at += 1,
            }
        }
        // An escape: the text so far decoded, then the rest unit by unit.
        let mut units: Vec<u16> = utf8_units(self.bytes.get(start..self.at)?);
        loop {
            let run = self.at;
            while !matches!(self.peek()?, b'"' | b'\\' | 0x00..=0x1F) {
                self.at += 1;
            }
            units.extend(utf8_units(self.bytes.get(run..self.at)?));
            let byte = self.peek()?;
            self.at += 1;
            match byte {
                b'"' => return Some(Literal::Escaped(units)),
                b'\\' => {
                    let escape = self.peek()?;
                    self.at += 1;
                    units.push(match escape {
                        b'"' => 0x22,
                        b'\\' => 0x5C,
                        b'/' => 0x2F,
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => 0x0A,
                        b'r' => 0x0D,
                        b't' => 0x09,
                        b'u' => {
                            let digits = self.bytes.get(self.at..self.at.checked_add(4)?)?;
                            let digits = std::str::from_utf8(digits).ok()?;
                            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                                return None;
                            }
                            self.at += 4;
                            u16::from_str_radix(digits, 16).ok()?
                        }
                        _ => return None,
                    });
                }
                _ => return None,
            }
        }
    }

    /// A number literal's value, rounded to the nearest double.
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        // The digits of the integer and fraction parts as one integer, kept while it is exact
        // (up to 15 digits), and how many of them are the fraction's.
        let mut digits = 0u64;
        let mut count = 0usize;
        let mut take = |parser: &mut Self| {
            while let Some(b @ b'0'..=b'9') = parser.peek() {
                digits = digits.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
                count += 1;
                parser.at += 1;
            }
        };
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => take(self),
            _ => return None,
        }
        let mut fraction = 0usize;
        if self.peek() == Some(b'.') {
            self.at += 1;
            let before = self.at;
            take(self);
            fraction = self.at - before;
            if fraction == 0 {
                return None;
            }
        }
        let mut exponent: Option<i64> = Some(0);
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            let sign = match self.peek() {
                Some(b'-') => -1,
                Some(b'+') => 1,
                _ => 0,
            };
            if sign != 0 {
                self.at += 1;
            }
            let before = self.at;
            let mut value = 0i64;
            while let Some(b @ b'0'..=b'9') = self.peek() {
                value = value.saturating_mul(10).saturating_add(i64::from(b - b'0'));
                self.at += 1;
            }
            if self.at == before {
                return None;
            }
            exponent = Some(if sign < 0 { -value } else { value });
        }
        // Clinger's fast path: an integer below 2^53 (15 digits) times or over a power of ten
        // up to 10^22 (each exactly a double) is one correctly rounded operation.
        let power = exponent.and_then(|e| e.checked_sub(i64::try_from(fraction).ok()?));
        if let Some(power @ -22..=22) = power.filter(|_| count <= 15) {
            const POWERS: [f64; 23] = [
                1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
                1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
            ];
            let scale = POWERS[power.unsigned_abs() as usize];
            let value = if power < 0 {
                digits as f64 / scale
            } else {
                digits as f64 * scale
            };
            return Some(if negative { -value } else { value });
        }
        // The literal is ASCII; Rust's parser rounds it correctly (and overflows to infinity).
        std::str::from_utf8(self.bytes.get(start..self.at)?)
            .ok()?
            .parse()
            .ok()
    }
}

/// CreateDataProperty(object, name, value) on an object of the parse.
fn define(object: &Object, name: &JsonName, value: Value, ctx: &mut Cx) -> JsResult<()> {
    engine::json_member(object, name, value, ctx)
}

/// The string value of a literal without escapes: its bytes UTF-8 decoded (errors replaced).
fn plain_string_value(bytes: &[u8], ctx: &mut Cx) -> JsResult<Value> {
    // Where the engine makes a string of ASCII bytes itself (QuickJS), it does.
    if let Some(value) = engine::string_value_from_utf8(bytes, ctx)? {
        return Ok(value);
    }
    if let Some(latin1) = latin1_of_utf8(bytes) {
        if let Some(value) = engine::string_value_from_latin1(&latin1, ctx)? {
            return Ok(value);
        }
    }
    engine::string_value_from_utf16(&utf8_units(bytes), ctx)
}

/// The name of a literal without escapes.
fn plain_name(bytes: &[u8], ctx: &mut Cx) -> JsResult<JsonName> {
    match std::str::from_utf8(bytes) {
        Ok(text) => JsonName::from_str(text, ctx),
        Err(_) => JsonName::from_utf16(&utf8_units(bytes), ctx),
    }
}

/// `bytes` (UTF-8) as Latin-1 when they are valid and every character is below U+0100 (ASCII
/// borrowed as it is).
fn latin1_of_utf8(bytes: &[u8]) -> Option<std::borrow::Cow<'_, [u8]>> {
    if bytes.is_ascii() {
        return Some(std::borrow::Cow::Borrowed(bytes));
    }
    let text = std::str::from_utf8(bytes).ok()?;
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect::<Option<Vec<u8>>>()
        .map(std::borrow::Cow::Owned)
}

/// UTF-8 decode of `bytes` (without BOM handling) as code units, each error a U+FFFD.
fn utf8_units(bytes: &[u8]) -> Vec<u16> {
    String::from_utf8_lossy(bytes).encode_utf16().collect()
}
