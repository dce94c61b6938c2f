//! Readable byte streams beyond what WPT covers directly: every view kind as a BYOB target, the
//! empty views handed back for closed streams, buffers that cannot be used (detached,
//! `SharedArrayBuffer`-backed), garbage collection of byte stream cycles, and user code that
//! re-enters the controller from a `then` getter while descriptors are being committed.

mod support;

use support::script::{run_test_actions, TestAction};

#[test]
fn every_view_kind_is_filled_and_keeps_its_constructor() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
                         Int32Array, Uint32Array, Float16Array, Float32Array, Float64Array,
                         BigInt64Array, BigUint64Array, DataView];
          for (const Kind of kinds) {
            const rs = new ReadableStream({
              type: 'bytes',
              pull(c) {
                // One byte at a time, so min (2 elements) needs several responds.
                const v = c.byobRequest.view;
                v[0] = 7;
                c.byobRequest.respond(1);
              }
            });
            const reader = rs.getReader({ mode: 'byob' });
            const size = Kind === DataView ? 1 : Kind.BYTES_PER_ELEMENT;
            const view = new Kind(new ArrayBuffer(8 * size + 8), 8, Kind === DataView ? 4 * size : 4);
            const { value, done } = await reader.read(view, { min: 2 });
            const length = Kind === DataView ? value.byteLength : value.length;
            log.push(`${Kind.name}:${value.constructor.name}:${value.byteOffset}:${length}:${done}:${view.buffer.byteLength}`);
          }
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        TestAction::assert_log(
            "Int8Array:Int8Array:8:2:false:0,\
             Uint8Array:Uint8Array:8:2:false:0,\
             Uint8ClampedArray:Uint8ClampedArray:8:2:false:0,\
             Int16Array:Int16Array:8:2:false:0,\
             Uint16Array:Uint16Array:8:2:false:0,\
             Int32Array:Int32Array:8:2:false:0,\
             Uint32Array:Uint32Array:8:2:false:0,\
             Float16Array:Float16Array:8:2:false:0,\
             Float32Array:Float32Array:8:2:false:0,\
             Float64Array:Float64Array:8:2:false:0,\
             BigInt64Array:BigInt64Array:8:2:false:0,\
             BigUint64Array:BigUint64Array:8:2:false:0,\
             DataView:DataView:8:2:false:0",
        ),
    ]);
}

#[test]
fn reads_on_closed_streams_return_an_empty_view_of_the_same_kind() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          for (const Kind of [Uint16Array, Float64Array, DataView]) {
            const rs = new ReadableStream({ type: 'bytes', start(c) { c.close(); } });
            const reader = rs.getReader({ mode: 'byob' });
            const buffer = new ArrayBuffer(32);
            const { value, done } = await reader.read(new Kind(buffer, 16, Kind === DataView ? 8 : 1));
            log.push(`${value.constructor.name}:${value.byteOffset}:${value.byteLength}:${value.buffer.byteLength}:${done}:${buffer.byteLength}`);
          }
          // Canceled: the memory is not handed back.
          const rs = new ReadableStream({ type: 'bytes' });
          const reader = rs.getReader({ mode: 'byob' });
          const read = reader.read(new Uint8Array(4));
          reader.cancel();
          const { value, done } = await read;
          log.push(`canceled:${value}:${done}`);
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        TestAction::assert_log(
            "Uint16Array:16:0:32:true:0,Float64Array:16:0:32:true:0,DataView:16:0:32:true:0,\
             canceled:undefined:true",
        ),
    ]);
}

#[test]
fn unusable_buffers_are_type_errors() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          let controller;
          const rs = new ReadableStream({ type: 'bytes', start(c) { controller = c; } });
          const attempt = (name, f) => {
            try { f(); log.push(name + ':no error'); } catch (e) { log.push(name + ':' + e.constructor.name); }
          };
          const shared = new Uint8Array(new SharedArrayBuffer(8));
          attempt('enqueue shared', () => controller.enqueue(shared));
          const detached = new Uint8Array(8);
          detached.buffer.transfer();
          attempt('enqueue detached', () => controller.enqueue(detached));
          attempt('enqueue non-view', () => controller.enqueue(new ArrayBuffer(8)));
          attempt('enqueue nothing', () => controller.enqueue());
          const reader = rs.getReader({ mode: 'byob' });
          for (const [name, view] of [['shared', shared], ['detached', detached], ['buffer', new ArrayBuffer(4)]]) {
            await reader.read(view).then(() => log.push('read ' + name + ':resolved'),
                                         e => log.push('read ' + name + ':' + e.constructor.name));
          }
          await reader.read(new Uint8Array(4), { min: 5 }).then(() => log.push('min:resolved'),
                                                                e => log.push('min:' + e.constructor.name));
          await reader.read(new Uint8Array(4), { min: -1 }).then(() => log.push('min -1:resolved'),
                                                                 e => log.push('min -1:' + e.constructor.name));
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        TestAction::assert_log(
            "enqueue shared:TypeError,enqueue detached:TypeError,enqueue non-view:TypeError,\
             enqueue nothing:TypeError,read shared:TypeError,read detached:TypeError,\
             read buffer:TypeError,min:RangeError,min -1:TypeError",
        ),
    ]);
}

#[test]
fn dropped_byte_stream_cycles_are_collected() {
    run_test_actions([
        TestAction::run(
            r#"
        globalThis.refs = [];
        (function () {
          for (let i = 0; i < 100; i++) {
            // A pending BYOB read with a live byobRequest.
            const rs = new ReadableStream({ type: 'bytes', pull(c) { globalThis.req = c.byobRequest; } });
            const reader = rs.getReader({ mode: 'byob' });
            reader.read(new Uint8Array(16));
            refs.push(new WeakRef(rs), new WeakRef(reader));
            // A byte tee with one branch reading through a BYOB reader.
            const [b1, b2] = new ReadableStream({ type: 'bytes' }).tee();
            b1.getReader({ mode: 'byob' }).read(new Uint8Array(4));
            b2.getReader().read();
            refs.push(new WeakRef(b1), new WeakRef(b2));
            // Queued chunks and an autoAllocateChunkSize pull-into.
            const auto = new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 8 });
            auto.getReader().read();
            refs.push(new WeakRef(auto));
          }
          globalThis.req = undefined;
        })();
        "#,
        ),
        TestAction::run("globalThis.req = undefined;"),
        TestAction::assert_collected("byte stream objects survived a collection"),
    ]);
}

#[test]
fn then_getters_may_reenter_the_controller_while_descriptors_commit() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          let controller;
          const rs = new ReadableStream({ type: 'bytes', start(c) { controller = c; } });
          const reader = rs.getReader({ mode: 'byob' });
          const reads = [];
          for (let i = 0; i < 4; i++) reads.push(reader.read(new Uint8Array(2)));
          let calls = 0;
          Object.defineProperty(Object.prototype, 'then', {
            configurable: true,
            get() {
              calls++;
              if (calls === 1) {
                // Re-enter while the first of several filled descriptors is being committed.
                controller.enqueue(new Uint8Array([9, 9]));
                const request = controller.byobRequest;
                log.push('byobRequest:' + (request === null ? 'null' : request.view.byteLength));
                reader.releaseLock();
              }
              return undefined;
            }
          });
          controller.enqueue(new Uint8Array([1, 2, 3, 4]));
          delete Object.prototype.then;
          const results = await Promise.allSettled(reads);
          for (const r of results) {
            log.push(r.status === 'fulfilled' ? Array.from(r.value.value).join('') : r.reason.constructor.name);
          }
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        // The first enqueue fills descriptors 1 and 2 and commits them in order. While read 1's
        // result is being resolved, the getter's enqueue fills descriptor 3, which the spec commits
        // to the first read-into request still queued: read 2 gets [9, 9]. The getter then sees the
        // byobRequest for descriptor 4 and releases the reader, which rejects reads 3 and 4; the
        // outer loop's commit of descriptor 2 then finds no BYOB reader (the spec asserts one) and
        // does nothing, rather than panicking.
        TestAction::assert_log("byobRequest:2,12,99,TypeError,TypeError"),
    ]);
}

#[test]
fn tee_branches_get_their_memory_back_when_the_source_closes() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          let controller;
          const rs = new ReadableStream({ type: 'bytes', start(c) { controller = c; } });
          const [b1, b2] = rs.tee();
          const r1 = b1.getReader({ mode: 'byob' });
          const r2 = b2.getReader({ mode: 'byob' });
          const p1 = r1.read(new Uint16Array(2));
          const p2 = r2.read(new Uint8Array(8));
          // Let the branches pull: branch1's BYOB request becomes the source's BYOB read.
          await Promise.resolve();
          await Promise.resolve();
          const request = controller.byobRequest;
          log.push('source request:' + (request && request.view.byteLength));
          controller.close();
          request.respond(0);
          for (const [name, p] of [['b1', p1], ['b2', p2]]) {
            const { value, done } = await p;
            log.push(`${name}:${value.constructor.name}:${value.byteLength}:${value.buffer.byteLength}:${done}`);
          }
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        TestAction::assert_log("source request:4,b1:Uint16Array:0:4:true,b2:Uint8Array:0:8:true"),
    ]);
}

#[test]
fn tee_switches_between_default_and_byob_readers_on_the_source() {
    run_test_actions([
        TestAction::run(
            r#"
        (async () => {
          let n = 0;
          const rs = new ReadableStream({
            type: 'bytes',
            pull(c) {
              n++;
              const request = c.byobRequest;
              if (request) {
                request.view[0] = n;
                request.respond(1);
              } else {
                c.enqueue(new Uint8Array([n, n]));
              }
            }
          });
          const [b1, b2] = rs.tee();
          const d1 = b1.getReader();
          const r2 = b2.getReader({ mode: 'byob' });
          // A default read on branch1 pulls through a default reader on the source...
          const a = await d1.read();
          log.push('b1 default:' + Array.from(a.value).join(''));
          // ...branch2 already has that chunk queued (a clone)...
          const b = await r2.read(new Uint8Array(4));
          log.push('b2 byob:' + Array.from(b.value).join(''));
          // ...and a BYOB read on an empty branch2 switches the source to a BYOB reader.
          const c = await r2.read(new Uint8Array(4));
          log.push('b2 byob:' + Array.from(c.value).join(''));
          const d = await d1.read();
          log.push('b1 default:' + Array.from(d.value).join(''));
        })().catch(e => log.push('error ' + e));
        "#,
        ),
        TestAction::assert_log("b1 default:11,b2 byob:11,b2 byob:2,b1 default:2"),
    ]);
}
