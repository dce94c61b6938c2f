//! The Fetch layer on the host: bodies consumed through their streams, `Response` and
//! `Request`, `clone()` through the tee, `FormData` bodies, and `fetch()` over a Rust
//! [`Fetcher`] whose body is pulled chunk by chunk (backpressure, abort).

#[path = "../support/mod.rs"]
mod support;

use std::{
    io::Read,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use boa_streams::fetcher::{
    BodyReader, FetchRequest, FetchResponse, Fetcher, IoBodyReader, ResponseBody,
};
use boa_streams::host::HostOptions;
use support::script::{Fixture, TestAction, WEBIDL_SHAPES};

fn host() -> Fixture {
    Fixture::host().with(WEBIDL_SHAPES)
}

#[test]
fn the_issue_checks() {
    host().run([
        TestAction::assert_async(
            "return await new Response(new Blob(['abc']).stream()).text();",
            "abc",
        ),
        TestAction::assert_string("String(({}) instanceof File)", "false"),
        TestAction::assert_async(
            "return await new Response(new Blob(['a', 'bc'], { type: 'text/x' })).blob().then(b => b.type + ':' + b.size);",
            "text/x:3",
        ),
    ]);
}

#[test]
fn bodies_are_read_once_through_their_streams() {
    host().run([TestAction::assert_async(
        r"
        const out = [];
        const r = new Response('h\u00e9');
        out.push(r.headers.get('content-type'), r.bodyUsed, r.body instanceof ReadableStream);
        out.push(await r.text(), r.bodyUsed);
        try { await r.text(); } catch (e) { out.push(e.name); }
        const locked = new Response('x');
        locked.body.getReader();
        try { await locked.arrayBuffer(); } catch (e) { out.push('locked ' + e.name); }
        const rs = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1, 2])); c.enqueue(new Uint8Array([3])); c.close(); } });
        out.push(Array.from(await new Response(rs).bytes()).join('+'));
        const bad = new ReadableStream({ start(c) { c.enqueue('not bytes'); c.close(); } });
        try { await new Response(bad).text(); } catch (e) { out.push('chunk ' + e.name); }
        out.push(JSON.stringify(await Response.json({ a: [1] }).json()));
        out.push(String(new Response(null).body), await new Response().text() === '');
        return out.join('|');
        ",
        "text/plain;charset=UTF-8|false|true|h\u{e9}|true|TypeError|locked TypeError|1+2+3|chunk TypeError|{\"a\":[1]}|null|true",
    )]);
}

/// `text()` decodes UTF-8 exactly whatever the characters: ASCII, Latin-1 text (which becomes
/// an 8-bit string on QuickJS), an accent at every place around a 64-byte block, text with a
/// character past U+00FF or an invalid byte anywhere (U+FFFD), a BOM, and bodies in many
/// chunks with characters cut between them. The expected strings are built code point by code
/// point in script, not by a decoder.
#[test]
fn text_decodes_latin1_and_other_text_exactly() {
    host().run([TestAction::assert_async(
        r"
        const enc = (s) => new TextEncoder().encode(s);
        const texts = [];
        for (const n of [0, 1, 62, 63, 64, 65, 127, 128, 200, 70000]) {
          for (const c of ['a', '\u00e9', '\u00ff', '\u0080', '\u0100', '\u20ac', '\u{1F499}']) {
            for (const at of [0, 31, 62, 63, 64, n]) {
              if (at > n) continue;
              texts.push('x'.repeat(at) + c + 'caf\u00e9 '.repeat(((n - at) / 5) | 0));
            }
          }
        }
        const bad = [];
        for (const t of texts) {
          const got = await new Response(enc(t)).text();
          if (got !== t) bad.push('whole ' + t.length);
          // The same bytes in chunks of 7 and of 64: characters cut across chunks.
          for (const size of [7, 64]) {
            const bytes = enc(t);
            const rs = new ReadableStream({ start(c) {
              for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
              c.close();
            } });
            if (await new Response(rs).text() !== t) bad.push('chunks ' + size + ' ' + t.length);
          }
        }
        // Invalid bytes become U+FFFD; a BOM is dropped.
        const invalid = new Uint8Array([0x63, 0xc3, 0xa9, 0xff, 0x61, 0xc3]);
        if (await new Response(invalid).text() !== 'c\u00e9\ufffda\ufffd') bad.push('invalid');
        const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0xc3, 0xa9]);
        if (await new Response(bom).text() !== '\u00e9') bad.push('bom');
        return bad.length + ' bad of ' + texts.length + (bad.length ? ': ' + bad.slice(0, 5).join() : '');
        ",
        "0 bad of 343",
    )]);
}

/// A byte stream's chunks read by a body: each enqueued buffer is detached by the enqueue (as
/// TransferArrayBuffer detaches it), the bytes read are exactly the views' (offsets and lengths
/// inside their buffers, small buffers and large ones, enqueued while the body waits and while
/// nothing reads), and a script reader sees the same bytes in fresh buffers.
#[test]
fn byte_stream_chunks_reach_a_body_detached_and_exact() {
    host().run([TestAction::assert_async(
        r"
        const sizes = [1, 64, 1000, 4095, 4096, 4097, 70000];
        const expected = [];
        const detached = [];
        const views = () => sizes.map((n, k) => {
          const buffer = new ArrayBuffer(n + 9);
          const all = new Uint8Array(buffer);
          for (let i = 0; i < all.length; i++) all[i] = (i * 7 + k) & 255;
          return new Uint8Array(buffer, 3 + (k & 1), n);
        });
        let k = 0;
        const chunks = views();
        const rs = new ReadableStream({ type: 'bytes', pull(c) {
          if (k === chunks.length) { c.close(); return; }
          const v = chunks[k++];
          for (const b of v) expected.push(b);
          const buffer = v.buffer;
          c.enqueue(v);
          detached.push(buffer.byteLength === 0 && buffer.detached);
        } });
        const got = new Uint8Array(await new Response(rs).arrayBuffer());
        const out = [got.length === expected.length && got.every((b, i) => b === expected[i]),
                     detached.every(Boolean) && detached.length === sizes.length];
        // Enqueued before anything reads: queued, then read by the body.
        const queued = views();
        const want = queued.flatMap((v) => Array.from(v));
        const rs2 = new ReadableStream({ type: 'bytes', start(c) { for (const v of queued) c.enqueue(v); c.close(); } });
        const got2 = new Uint8Array(await new Response(rs2).arrayBuffer());
        out.push(got2.length === want.length && got2.every((b, i) => b === want[i]));
        // A script reader gets views over fresh buffers of exactly the bytes.
        const mine = views();
        let j = 0;
        const rs3 = new ReadableStream({ type: 'bytes', pull(c) { if (j === mine.length) c.close(); else c.enqueue(mine[j++]); } });
        const reader = rs3.getReader();
        const lengths = [];
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          lengths.push(value.byteOffset + ':' + value.byteLength + ':' + value[0]);
        }
        out.push(lengths.join());
        return out.join('|');
        ",
        "true|true|true|3:1:21,4:64:29,3:1000:23,4:4095:31,3:4096:25,4:4097:33,3:70000:27",
    )]);
}

/// A byte stream with `autoAllocateChunkSize` read by a body: the bytes the source writes into
/// each BYOB request's view and responds with are read exactly (a partial fill too), and the
/// view's buffer, which script holds, is detached by the response.
#[test]
fn auto_allocated_chunks_reach_a_body_detached_and_exact() {
    host().run([TestAction::assert_async(
        r"
        const want = [];
        const detached = [];
        for (const size of [100, 4096, 5000]) {
          let k = 0;
          const rs = new ReadableStream({ type: 'bytes', autoAllocateChunkSize: size, pull(c) {
            if (k === 5) { c.close(); c.byobRequest?.respond(0); return; }
            const view = c.byobRequest.view;
            const n = Math.max(1, view.byteLength - 7 * k);
            for (let i = 0; i < n; i++) view[i] = (i * 5 + k + size) & 255;
            want.push(...view.subarray(0, n));
            k++;
            c.byobRequest.respond(n);
            detached.push(view.buffer.byteLength === 0 && view.byteLength === 0);
          } });
          const got = new Uint8Array(await new Response(rs).arrayBuffer());
          if (got.length !== want.length || !got.every((b, i) => b === want[i])) return 'bytes ' + size;
          want.length = 0;
        }
        return detached.length + ' ' + detached.every(Boolean);
        ",
        "15 true",
    )]);
}

#[test]
fn a_disturbed_or_locked_stream_is_no_body() {
    host().run([TestAction::assert_async(
        r"
        const out = [];
        const rs = new ReadableStream();
        rs.getReader();
        try { new Response(rs); } catch (e) { out.push(e.name); }
        const rs2 = new ReadableStream({ start(c) { c.close(); } });
        await rs2.getReader().read();
        try { new Request('https://x.test/', { method: 'POST', body: rs2, duplex: 'half' }); } catch (e) { out.push(e.name); }
        try { new Request('https://x.test/', { method: 'POST', body: new ReadableStream() }); } catch (e) { out.push('no duplex ' + e.name); }
        try { new Request('https://x.test/', { body: 'x' }); } catch (e) { out.push('GET ' + e.name); }
        return out.join('|');
        ",
        "TypeError|TypeError|no duplex TypeError|GET TypeError",
    )]);
}

#[test]
fn clone_tees_the_body() {
    host().run([TestAction::assert_async(
        r"
        const r = new Response(new ReadableStream({ start(c) { c.enqueue(new Uint8Array([104, 105])); c.close(); } }), { status: 201, statusText: 'Made', headers: { 'X-A': '1' } });
        const c = r.clone();
        c.headers.set('X-A', '2');
        const texts = await Promise.all([r.text(), c.text()]);
        const req = new Request('https://example.test/p?q#f', { method: 'post', body: 'data', headers: [['X-B', 'y']] });
        const rc = req.clone();
        return [c.status, c.statusText, r.headers.get('x-a'), c.headers.get('x-a'), texts.join(),
                req.method, req.url, rc.headers.get('x-b'), await rc.text(), await req.text(),
                rc.signal !== req.signal].join('|');
        ",
        "201|Made|1|2|hi,hi|POST|https://example.test/p?q#f|y|data|data|true",
    )]);
}

/// Fetch's clone tees with cloneForBranch2 (the Streams Standard's "tee" for other
/// specifications): the clone's branch gets a structured clone of each chunk, and a chunk that
/// cannot be cloned errors both branches and cancels the source with the DataCloneError.
#[test]
fn clone_structured_clones_branch2_chunks_and_errors_on_uncloneable_ones() {
    host().run([TestAction::assert_async(
        r"
        const chunk = { a: [1, 2] };
        let canceledWith;
        const rs = new ReadableStream({
          start(c) { c.enqueue(chunk); c.enqueue(() => 1); },
          cancel(r) { canceledWith = r; },
        });
        const original = new Response(rs);
        const copy = original.clone();
        const r1 = original.body.getReader(), r2 = copy.body.getReader();
        const [x1, x2] = await Promise.all([r1.read(), r2.read()]);
        const out = [x1.value === chunk, x2.value !== chunk && x2.value.a[1] === 2];
        await Promise.all([r1.read(), r2.read()]).catch(e => out.push(e.name));
        const errors = await Promise.all([r1.closed.catch(e => e.name), r2.closed.catch(e => e.name)]);
        out.push(...errors, canceledWith && canceledWith.name);
        return out.join('|');
        ",
        "true|true|DataCloneError|DataCloneError|DataCloneError|DataCloneError",
    )]);
}

#[test]
fn response_statics_and_errors() {
    host().run([TestAction::check(
        r"
        const e = Response.error();
        eq(e.type, 'error', 'type');
        eq(e.status, 0, 'status');
        throws(TypeError, () => e.headers.set('a', 'b'), 'immutable headers');
        throws(RangeError, () => new Response('', { status: 600 }), 'status range');
        throws(TypeError, () => new Response('x', { status: 204 }), 'null body status');
        throws(TypeError, () => new Response('', { statusText: '\n' }), 'reason phrase');
        throws(TypeError, () => Response.json(undefined), 'undefined JSON');
        eq(Response.json({}, { status: 202 }).status, 202, 'json status');
        eq(Response.json(1).headers.get('content-type'), 'application/json', 'json type');
        eq(Object.prototype.toString.call(new Response()), '[object Response]', 'tag');
        accessorShape(Response.prototype, 'body', false);
        operationShape(Response.prototype, 'text', 0);
        operationShape(Request.prototype, 'clone', 0);
        eq(Response.redirect('/x', 301).headers.get('location'), 'http://web-platform.test:8000/x', 'redirect');
        throws(RangeError, () => Response.redirect('/x', 200), 'redirect status');
        const h = new Headers([['b', '2'], ['A', '1'], ['a', '3']]);
        eq([...h].join(';'), 'a,1, 3;b,2', 'sorted and combined');
        throws(TypeError, () => Object.getOwnPropertyDescriptor(Response.prototype, 'status').get.call({}), 'brand check');
        Response.prototype.text.call({}).catch(e => { globalThis.rejectedWith = e.name; });
        ",
    )]);
}

#[test]
fn promise_operations_reject_on_a_bad_this() {
    host().run([
        TestAction::run(
            "Response.prototype.text.call({}).catch(e => { globalThis.rejectedWith = e.name; });",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("rejectedWith", "TypeError"),
    ]);
}

#[test]
fn form_data_round_trips_through_a_body() {
    host().run([TestAction::assert_async(
        r"
        const fd = new FormData();
        fd.append('a', '1');
        fd.append('f', new Blob(['xyz'], { type: 'text/plain' }), 'x.txt');
        fd.append('a', '2');
        const r = new Response(fd);
        const type = r.headers.get('content-type');
        const back = await r.formData();
        const f = back.get('f');
        const params = await new Response('b=1&b=2&c=%20').formData().catch(e => e.name);
        return [type.startsWith('multipart/form-data; boundary='), back.getAll('a').join(),
                f instanceof File, f.name, f.type, await f.text(), [...back.keys()].join(),
                params].join('|');
        ",
        "true|1,2|true|x.txt|text/plain|xyz|a,f,a|TypeError",
    )]);
}

/// A fetcher that serves `/data`, counting what its body reader has handed out.
struct CountingFetcher {
    length: u64,
    handed_out: Arc<AtomicU64>,
    requests: Arc<Mutex<Vec<FetchRequest>>>,
}

struct CountingReader {
    left: u64,
    handed_out: Arc<AtomicU64>,
}

impl BodyReader for CountingReader {
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        if self.left == 0 {
            return Ok(None);
        }
        let n = self.left.min(64 * 1024);
        self.left -= n;
        self.handed_out.fetch_add(n, Ordering::SeqCst);
        Ok(Some(vec![7; n as usize]))
    }
}

impl Fetcher for CountingFetcher {
    fn fetch(&self, request: &FetchRequest) -> Result<FetchResponse, String> {
        self.requests
            .lock()
            .map_err(|e| e.to_string())?
            .push(request.clone());
        if !request.url.ends_with("/data") {
            return Err("not found".to_owned());
        }
        let mut response = FetchResponse::ok(ResponseBody::Reader(Box::new(CountingReader {
            left: self.length,
            handed_out: self.handed_out.clone(),
        })));
        response.headers.push((
            b"Content-Type".to_vec(),
            b"application/octet-stream".to_vec(),
        ));
        Ok(response)
    }
}

fn counting_host(length: u64) -> (Fixture, Arc<AtomicU64>, Arc<Mutex<Vec<FetchRequest>>>) {
    let handed_out = Arc::new(AtomicU64::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let fetcher = CountingFetcher {
        length,
        handed_out: handed_out.clone(),
        requests: requests.clone(),
    };
    let fixture = Fixture::host_with(HostOptions {
        fetcher: Some(Arc::new(fetcher)),
        ..HostOptions::default()
    });
    (fixture, handed_out, requests)
}

#[test]
fn a_fetched_body_is_pulled_only_as_it_is_read() {
    let (mut fixture, handed_out, requests) = counting_host(10 * 64 * 1024);
    let handed = handed_out.clone();
    fixture.run([
        TestAction::run(
            r"
            var reader, response;
            fetch('https://example.test/data', { method: 'POST', body: 'up', headers: { 'X-Up': '1' } })
                .then(r => { response = r; reader = r.body.getReader(); });
            ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "[response.status, response.ok, response.url, response.headers.get('content-type')].join()",
            "200,true,https://example.test/data,application/octet-stream",
        ),
        // Nothing was read before a read asked for it (the high-water mark is 0).
        TestAction::inspect(move |_| assert_eq!(handed.load(Ordering::SeqCst), 0)),
        TestAction::run("var got = 0; reader.read().then(r => { got += r.value.length; });"),
        TestAction::run_to_idle(),
        TestAction::assert_string("String(got)", "65536"),
    ]);
    assert_eq!(handed_out.load(Ordering::SeqCst), 64 * 1024);
    let requests = requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].body.as_deref(), Some(&b"up"[..]));
    assert!(requests[0]
        .headers
        .iter()
        .any(|(n, v)| n == b"X-Up" && v == b"1"));
}

#[test]
fn abort_errors_the_body_and_stops_reading() {
    let (mut fixture, handed_out, _) = counting_host(100 * 64 * 1024);
    fixture.run([
        TestAction::run(
            r"
            var controller = new AbortController(), outcome = [];
            fetch('https://example.test/data', { signal: controller.signal }).then(async r => {
                const reader = r.body.getReader();
                await reader.read();
                controller.abort();
                try { await reader.read(); outcome.push('read'); } catch (e) { outcome.push(e.name); }
            });
            const early = new AbortController();
            early.abort();
            fetch('https://example.test/data', { signal: early.signal }).catch(e => outcome.push('early ' + e.name));
            fetch('https://example.test/missing').catch(e => outcome.push('network ' + e.name));
            fetch('data:text/plain;base64,aGk=').then(async r => outcome.push(r.headers.get('content-type') + ' ' + await r.text()));
            ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string(
            "outcome.sort().join('|')",
            "AbortError|early AbortError|network TypeError|text/plain hi",
        ),
    ]);
    // One chunk was read before the abort, and none after.
    assert_eq!(handed_out.load(Ordering::SeqCst), 64 * 1024);
}

/// Pseudo-random bytes (xorshift): incompressible, so the gzip stream is as long as the data.
struct Noise {
    state: u64,
    left: u64,
}

impl Read for Noise {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        for byte in &mut buf[..n] {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            *byte = self.state as u8;
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Serves a gzip body compressed on the fly from [`Noise`], recording how far the reader ran.
struct GzipFetcher {
    length: u64,
    handed_out: Arc<AtomicU64>,
}

struct Tracked<R> {
    inner: R,
    handed_out: Arc<AtomicU64>,
}

impl<R: BodyReader> BodyReader for Tracked<R> {
    fn read_chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let chunk = self.inner.read_chunk()?;
        if let Some(chunk) = &chunk {
            self.handed_out
                .fetch_add(chunk.len() as u64, Ordering::SeqCst);
        }
        Ok(chunk)
    }
}

impl Fetcher for GzipFetcher {
    fn fetch(&self, _: &FetchRequest) -> Result<FetchResponse, String> {
        let noise = Noise {
            state: 0x9E37_79B9_7F4A_7C15,
            left: self.length,
        };
        // The default level: its blocks fall back to stored ones on noise, so the gzip stream
        // stays as long as the data (zlib-rs's fastest level always uses the fixed Huffman
        // code, which makes noise 6% longer, and that would read as run-ahead).
        let gzip = flate2::read::GzEncoder::new(noise, flate2::Compression::default());
        Ok(FetchResponse::ok(ResponseBody::Reader(Box::new(Tracked {
            inner: IoBodyReader::new(gzip, 64 * 1024),
            handed_out: self.handed_out.clone(),
        }))))
    }
}

/// What the gzip test's reader has handed out (read by a host function, which cannot capture).
static GZIP_HANDED_OUT: std::sync::LazyLock<Arc<AtomicU64>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicU64::new(0)));

#[test]
fn a_gzip_body_streams_through_decompression_with_bounded_read_ahead() {
    const LENGTH: u64 = 8 * 1024 * 1024;
    let handed_out = GZIP_HANDED_OUT.clone();
    let mut fixture = Fixture::host_with(HostOptions {
        fetcher: Some(Arc::new(GzipFetcher {
            length: LENGTH,
            handed_out: handed_out.clone(),
        })),
        ..HostOptions::default()
    });
    // The JS side records, at each chunk it reads, how far the fetcher's reader has run ahead
    // of the decompressed bytes consumed (through a host function reading the counter).
    fixture.run([
        TestAction::inspect_context(move |ctx| {
            use boa_streams::host::{test_api, Context};
            use boa_streams::{JsResult, Value};
            fn handed_out(_: &Value, _: &[Value], _: &mut Context) -> JsResult<Value> {
                Ok(Value::from(GZIP_HANDED_OUT.load(Ordering::SeqCst) as f64))
            }
            test_api::define_global_function(ctx, "handedOut", 0, handed_out).unwrap();
        }),
        TestAction::run(
            r"
            var total = 0, maxAhead = 0, done = false;
            fetch('https://example.test/big.gz').then(async r => {
                const reader = r.body.pipeThrough(new DecompressionStream('gzip')).getReader();
                for (;;) {
                    const { value, done: end } = await reader.read();
                    if (end) break;
                    total += value.length;
                    maxAhead = Math.max(maxAhead, handedOut() - total);
                }
                done = true;
            });
            ",
        ),
        TestAction::run_to_idle(),
        TestAction::assert_string("String(done)", "true"),
        TestAction::assert_string("String(total)", LENGTH.to_string()),
        // Read-ahead stays within a few chunks (the pipe's and the transform's queues), never
        // the whole body.
        TestAction::assert("maxAhead <= 4 * 65536"),
    ]);
}

/// `json()` gives what `JSON.parse` of the body's text gives (on Boa a parser of our own builds
/// it): the same values, key order, property attributes and prototypes, for hand-picked texts
/// and generated ones (names repeated and colliding, escapes, numbers of every form); the same
/// `SyntaxError` for text that is not JSON; a lone surrogate escape as one code unit.
#[test]
fn json_gives_what_json_parse_gives() {
    host().run([TestAction::assert_async(
        r#"
        function same(a, b, path) {
          if (typeof a !== typeof b) throw new Error(path + ': types ' + typeof a + ' ' + typeof b);
          if (a === null || typeof a !== 'object') {
            if (!Object.is(a, b)) throw new Error(path + ': ' + String(a) + ' vs ' + String(b));
            return;
          }
          if (Array.isArray(a) !== Array.isArray(b)) throw new Error(path + ': array');
          if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) throw new Error(path + ': prototype');
          if (!Object.isExtensible(a)) throw new Error(path + ': not extensible');
          const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
          if (ka.join('\u0000') !== kb.join('\u0000')) throw new Error(path + ': keys ' + ka + ' vs ' + kb);
          for (const k of ka) {
            const da = Object.getOwnPropertyDescriptor(a, k), db = Object.getOwnPropertyDescriptor(b, k);
            if (da.writable !== db.writable || da.enumerable !== db.enumerable
                || da.configurable !== db.configurable) throw new Error(path + ': attributes of ' + k);
            same(da.value, db.value, path + '.' + String(k));
          }
        }
        const texts = [
          '0', '-0', '1', '-1', '0.5', '-0.0', '1e3', '1E+3', '1e-7', '2.5e-320',
          '123456789012345', '1234567890123456', '9007199254740993', '12345678901234567890123',
          '0.1', '3.141592653589793238462643383279', '1.7976931348623157e308',
          '1.5e3', '0.000001', '123.456', '-0.001e-3', '4.35', '1e22', '1e23', '8.1e-22',
          '12345678901234.5', '9.007199254740993e15', '0.1e-21', '5e-324', '100e-2',
          'true', 'false', 'null', '""', '"a"', ' \t\r\n[ 1 , 2 ]\n ', '[]', '{}', '[[], {}, [[]]]',
          '{"a":1,"a":2,"b":3,"a":4}', '{"__proto__":[1],"x":{"__proto__":null}}',
          '{"2":"two","1":"one","b":"b","0":"zero","4294967295":"max","-1":"neg","01":"lead"}',
          '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00"', '"caf\u00e9 \u20ac \ud83d\ude00"',
          '{"caf\u00e9":1,"\\u0063af\\u00e9":2,"n\\u00e4me":3,"n\u00e4me":4}',
          '{"' + 'k'.repeat(40) + '":1,"' + 'k'.repeat(32) + '":2,"' + 'k'.repeat(33) + '":3}',
        ];
        // Generated texts: objects of names drawn from a small pool (met again and again, and
        // colliding in any small table), nested arrays, strings and numbers of every form.
        let seed = 12345;
        const next = (n) => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % n; };
        const names = ['id', 'name', 'score', 'ok', 'a', 'b', 'é', 'ключ', '1', '0', '__proto__', 'x y', 'k\\u0041'];
        const strings = ['', 'row', 'caf\u00e9', '\\n\\t', '\\u0000', '\u4e2d\u6587', '\ud83d\ude00', '\\ud83d\\ude00', '"'.replace('"', '\\"')];
        const numbers = ['0', '-0', '7', '-12', '3.25', '1e21', '1e-5', '-4.5E+2', '9007199254740993', '0.30000000000000004'];
        function gen(depth) {
          const k = depth > 4 ? next(3) + 2 : next(6);
          if (k === 0) {
            const n = next(5);
            return '{' + Array.from({ length: n }, () => '"' + names[next(names.length)] + '":' + gen(depth + 1)).join(',') + '}';
          }
          if (k === 1) return '[' + Array.from({ length: next(5) }, () => gen(depth + 1)).join(', ') + ']';
          if (k === 2) return '"' + strings[next(strings.length)] + '"';
          if (k === 3) return numbers[next(numbers.length)];
          return ['true', 'false', 'null'][next(3)];
        }
        for (let i = 0; i < 300; i++) texts.push(gen(0));
        const rows = [];
        for (let i = 0; i < 2000; i++) rows.push({ id: i, name: 'row ' + i, score: i * 0.5, ok: i % 3 === 0, ['k' + (i % 97)]: [i] });
        texts.push(JSON.stringify(rows));
        // Like objects in arrays (the shapes a parse keeps): 20 members, more than the 16 kept;
        // 40 sequences of names, more than the 16 kept; nested like objects in a member.
        const wide = (i) => Object.fromEntries(Array.from({ length: 20 }, (_, j) => ['m' + j, i + j]));
        texts.push(JSON.stringify(Array.from({ length: 50 }, (_, i) => wide(i))));
        texts.push(JSON.stringify(Array.from({ length: 200 }, (_, i) =>
          Object.fromEntries(Array.from({ length: 2 + (i % 5) }, (_, j) => ['s' + ((i + j) % 40), { a: i, b: [j], c: { d: j } }])))));
        for (const text of texts) {
          same(await new Response(text).json(), JSON.parse(text), text.slice(0, 60));
          same(await new Response(new TextEncoder().encode(text)).json(), JSON.parse(text), text.slice(0, 60));
        }
        const out = [texts.length];
        // Not JSON: the SyntaxError JSON.parse throws.
        for (const bad of ['', '{', '[1,]', '01', '{"a" 1}', "'a'", 'tru', '1.', '-', '.5', '+1', '"\u0001"',
                           '{"a":1,}', 'NaN', '[1] x', '"\\x41"', '"\\u12"', '{a:1}', '"abc']) {
          let parsed;
          try { JSON.parse(bad); parsed = 'parsed'; } catch (e) { parsed = e.constructor.name; }
          let json;
          try { await new Response(bad).json(); json = 'parsed'; } catch (e) { json = e.constructor.name; }
          if (parsed !== 'SyntaxError' || json !== 'SyntaxError') out.push(bad + ': ' + parsed + ' ' + json);
        }
        // Past the largest double: infinite (Boa 0.22's JSON.parse throws instead).
        out.push((await new Response('[1e400, -1e400]').json()).join());
        // A byte order mark goes with UTF-8 decode.
        out.push(await new Response('\ufeff[1]').json().then((v) => v[0]));
        // A lone surrogate escape is one code unit.
        const lone = await new Response('["\\ud83d", "\\udc00x"]').json();
        out.push(lone.map((s) => s.length + ':' + s.charCodeAt(0).toString(16)).join(','));
        // Nested deeper than any parser's recursion goes: json() and JSON.parse agree.
        const deep = '['.repeat(600) + ']'.repeat(600);
        let a, b;
        try { a = JSON.stringify(JSON.parse(deep)).length; } catch (e) { a = e.constructor.name; }
        try { b = JSON.stringify(await new Response(deep).json()).length; } catch (e) { b = e.constructor.name; }
        out.push(a === b);
        return out.join('|');
        "#,
        "349|Infinity,-Infinity|1|1:d83d,2:dc00|true",
    )]);
}
