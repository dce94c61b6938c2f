//! The reference implementation with its known departures from the spec corrected.
//!
//! A divergence belongs to a reference-deviation class when it disappears once the reference's
//! code for that departure is replaced by what the spec (or WPT) says: the whole native log then
//! equals the corrected reference's. Each correction is a text patch of the bundle, checked to
//! apply exactly once, so a changed bundle fails loudly instead of silently comparing against
//! the stock reference.

use crate::side::ReferenceSource;

/// A departure of the reference from the spec, and its correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Correction {
    /// The pipe writes a chunk synchronously inside the source's `controller.enqueue()`
    /// (whatwg/streams#1243; WPT streams/piping/general-addition.any.js "enqueue() must not
    /// synchronously call write algorithm"). Corrected: a chunk that arrives while the pipe's
    /// own read call is not running (that is, inside an `enqueue()`) is written in a microtask,
    /// queued before the read's promise is resolved.
    SyncWrite,
    /// webidl2js emulates `async_sequence` with async functions and `yield*`, whose microtask
    /// counts and calls differ from WebIDL's "open an async sequence", "get the next value",
    /// "close an async iterator" and ECMAScript's CreateAsyncFromSyncIterator. Corrected: those
    /// algorithms step by step, and ReadableStreamFromIterable's pull and cancel as the spec
    /// writes them.
    AsyncSequence,
    /// The pipe's pending step still reads (and so pulls) after a shutdown has begun, e.g.
    /// when the signal aborts between the step's start and the destination's ready promise
    /// settling. The spec: "after shuttingDown becomes true, the user agent must not initiate
    /// further reads from reader". Corrected: the step ends the loop instead.
    ReadAfterShutdown,
    /// A transform stream's sink abort, sink close or source cancel algorithm performs the
    /// controller's [[cancelAlgorithm]] / [[flushAlgorithm]] after
    /// TransformStreamDefaultControllerClearAlgorithms has cleared it (e.g. `controller.error()`
    /// in `start` while `writable.abort()` waits for the start), which the spec leaves
    /// undefined. The reference calls `undefined`: the TypeError is thrown inside a promise
    /// reaction, and the abort never settles or the cancel rejects. boa_streams performs a
    /// cleared algorithm as one that returns a promise resolved with undefined; so does the
    /// corrected reference. The same holds for [[transformAlgorithm]]: a write waiting on the
    /// backpressure change when the readable side is cancelled (a read released the
    /// backpressure just before, or TransformStreamUnblockWrite did) reaches
    /// TransformStreamDefaultControllerPerformTransform after the clear; the reference's
    /// TypeError rejects the write and then the cancel, while WPT
    /// transform-streams/backpressure.any.js expects "cancelling the readable should cause a
    /// pending write to resolve".
    ClearedAlgorithm,
}

impl Correction {
    /// Every correction, in the order of their bits in a [`crate::diff::Class::Corrected`]
    /// mask.
    pub const ALL: [Correction; 4] = [
        Correction::SyncWrite,
        Correction::AsyncSequence,
        Correction::ReadAfterShutdown,
        Correction::ClearedAlgorithm,
    ];
}

/// One replacement: the text the bundle must contain `times` times, and what replaces it.
struct Patch {
    find: &'static str,
    replace: &'static str,
    times: usize,
}

const SYNC_WRITE: &[Patch] = &[
    Patch {
        find: "        return new Promise((resolveRead, rejectRead) => {
          ReadableStreamDefaultReaderRead(
            reader,
            {
              chunkSteps: chunk => {
                currentWrite = transformPromiseWith(
                  WritableStreamDefaultWriterWrite(writer, chunk), undefined, () => {}
                );
                resolveRead(false);
              },
              closeSteps: () => resolveRead(true),
              errorSteps: rejectRead
            }
          );
        });",
        replace: "        return new Promise((resolveRead, rejectRead) => {
          let inRead = true;
          ReadableStreamDefaultReaderRead(
            reader,
            {
              chunkSteps: chunk => {
                const write = () => {
                  currentWrite = transformPromiseWith(
                    WritableStreamDefaultWriterWrite(writer, chunk), undefined, () => {}
                  );
                };
                if (inRead) {
                  write();
                } else {
                  __sdUnwritten.push(write);
                  __sdQueueMicrotask(() => {
                    const pending = __sdUnwritten.shift();
                    if (pending !== undefined) pending();
                  });
                }
                resolveRead(false);
              },
              closeSteps: () => resolveRead(true),
              errorSteps: rejectRead
            }
          );
          inRead = false;
        });",
        times: 1,
    },
    // The chunks read but not yet written (their microtask has not run).
    Patch {
        find: "  let shuttingDown = false;",
        replace: "  let shuttingDown = false;
  const __sdUnwritten = [];",
        times: 1,
    },
    // Shutdown and shutdown with an action: "if dest.[[state]] is \"writable\" and !
    // WritableStreamCloseQueuedOrInFlight(dest) is false, if any chunks have been read but not yet
    // written, write them to dest"; otherwise they are never written ("if shuttingDown becomes
    // true, the user agent ... must only perform writes of already-read chunks, as described
    // below").
    Patch {
        find: "      shuttingDown = true;

      if (dest._state === 'writable' && WritableStreamCloseQueuedOrInFlight(dest) === false) {",
        replace: "      shuttingDown = true;

      {
        const pending = __sdUnwritten.splice(0);
        if (dest._state === 'writable' && WritableStreamCloseQueuedOrInFlight(dest) === false) {
          for (const write of pending) write();
        }
      }
      if (dest._state === 'writable' && WritableStreamCloseQueuedOrInFlight(dest) === false) {",
        times: 2,
    },
];

const READ_AFTER_SHUTDOWN: &[Patch] = &[Patch {
    find: "      return transformPromiseWith(writer._readyPromise, () => {
        return new Promise((resolveRead, rejectRead) => {",
    replace: "      return transformPromiseWith(writer._readyPromise, () => {
        if (shuttingDown === true) {
          return true;
        }
        return new Promise((resolveRead, rejectRead) => {",
    times: 1,
}];

const CLEARED_ALGORITHM: &[Patch] = &[
    Patch {
        find: "  controller._finishPromise = newPromise();

  const cancelPromise = controller._cancelAlgorithm(reason);
  TransformStreamDefaultControllerClearAlgorithms(controller);

",
        replace: "  controller._finishPromise = newPromise();

  const cancelPromise = controller._cancelAlgorithm === undefined
    ? promiseResolvedWith(undefined)
    : controller._cancelAlgorithm(reason);
  TransformStreamDefaultControllerClearAlgorithms(controller);

",
        times: 2,
    },
    // A write that waited on the backpressure change reaches PerformTransform after the
    // readable side's cancel cleared [[transformAlgorithm]]: the pending write resolves (WPT
    // transform-streams/backpressure.any.js "cancelling the readable should cause a pending
    // write to resolve").
    Patch {
        find: "  const transformPromise = controller._transformAlgorithm(chunk);",
        replace: "  const transformPromise = controller._transformAlgorithm === undefined
    ? promiseResolvedWith(undefined)
    : controller._transformAlgorithm(chunk);",
        times: 1,
    },
    Patch {
        find: "  const flushPromise = controller._flushAlgorithm();",
        replace: "  const flushPromise = controller._flushAlgorithm === undefined
    ? promiseResolvedWith(undefined)
    : controller._flushAlgorithm();",
        times: 1,
    },
];

const ASYNC_SEQUENCE: &[Patch] = &[
    // CreateAsyncFromSyncIterator(syncIteratorRecord), %AsyncFromSyncIteratorPrototype%.next /
    // .return and AsyncFromSyncIteratorContinuation, step by step.
    Patch {
        find: "function createAsyncFromSyncIterator(syncIterator) {",
        replace: "function createAsyncFromSyncIterator(syncIterator) {
  return __sdCreateAsyncFromSyncIterator(syncIterator, syncIterator.next);
}
function __sdUnusedYieldStarEmulation(syncIterator) {",
        times: 1,
    },
    // "Open an async sequence", "get the next value" and "close an async iterator".
    Patch {
        find: "function openAsyncSequence(object, method, type, itemConverter, errPrefix = \"The provided value\") {",
        replace: "function openAsyncSequence(object, method, type, itemConverter, errPrefix = \"The provided value\") {
  return __sdOpenAsyncSequence(object, method, type, itemConverter, errPrefix, call, isObject, getMethod);
}
function __sdUnusedOpenAsyncSequence(object, method, type, itemConverter, errPrefix = \"The provided value\") {",
        times: 1,
    },
    // ReadableStreamFromIterable: pull reacts to the next value (end of iteration closes; "if
    // nextPromise was rejected with reason r, perform ! ReadableStreamDefaultControllerError(
    // stream.[[controller]], r)" in the pull algorithm's own reaction, not one job later
    // through the rejected pull promise as the stock code does); cancel returns the result of
    // closing the iterator.
    Patch {
        find: "  function pullAlgorithm() {
    const nextPromise = iterator.next();
    return transformPromiseWith(nextPromise, iterResult => {
      const done = IteratorComplete(iterResult);
      if (done === true) {
        ReadableStreamDefaultControllerClose(stream._controller);
      } else {
        const value = IteratorValue(iterResult);
        ReadableStreamDefaultControllerEnqueue(stream._controller, value);
      }
    });
  }

  function cancelAlgorithm(reason) {
    const returnPromise = iterator.return(reason);
    return transformPromiseWith(returnPromise, () => {
      return undefined;
    });
  }",
        replace: "  function pullAlgorithm() {
    const nextPromise = iterator.getTheNextValue();
    return transformPromiseWith(nextPromise, v => {
      if (v === iterator.endOfIteration) {
        ReadableStreamDefaultControllerClose(stream._controller);
      } else {
        ReadableStreamDefaultControllerEnqueue(stream._controller, v);
      }
    }, r => {
      ReadableStreamDefaultControllerError(stream._controller, r);
    });
  }

  function cancelAlgorithm(reason) {
    return iterator.close(reason);
  }",
        times: 1,
    },
];

/// The helpers the patches call, defined before the bundle runs (from builtins captured then,
/// so scripts that patch them do not change the corrected reference).
const PRELUDE: &str = r#"
(() => {
  const P = Promise;
  const then = P.prototype.then;
  const resolveStatic = P.resolve;
  const TypeErrorCtor = TypeError;
  const queue = queueMicrotask;
  const isObj = v => (typeof v === 'object' && v !== null) || typeof v === 'function';
  const newCapability = () => {
    let resolve, reject;
    const promise = new P((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
  const rejected = e => new P((_, reject) => reject(e));
  globalThis.__sdQueueMicrotask = f => queue(f);

  // IteratorClose(iteratorRecord, throwCompletion): call `return` if any, keep the error.
  const closeOnThrow = iterator => {
    try {
      const ret = iterator.return;
      if (ret !== undefined && ret !== null) ret.call(iterator);
    } catch (_) {}
  };

  // AsyncFromSyncIteratorContinuation(result, promiseCapability, syncIteratorRecord,
  // closeOnRejection).
  const continuation = (result, cap, syncIterator, closeOnRejection) => {
    let done, value, valueWrapper;
    try { done = !!result.done; } catch (e) { cap.reject(e); return cap.promise; }
    try { value = result.value; } catch (e) { cap.reject(e); return cap.promise; }
    try { valueWrapper = resolveStatic.call(P, value); } catch (e) {
      if (!done && closeOnRejection) closeOnThrow(syncIterator);
      cap.reject(e);
      return cap.promise;
    }
    const onFulfilled = v => cap.resolve({ value: v, done });
    const onRejected = (done || !closeOnRejection)
      ? e => cap.reject(e)
      : e => { closeOnThrow(syncIterator); cap.reject(e); };
    then.call(valueWrapper, onFulfilled, onRejected);
    return cap.promise;
  };

  globalThis.__sdCreateAsyncFromSyncIterator = (syncIterator, nextMethod) => {
    return {
      next(...args) {
        const cap = newCapability();
        let result;
        try {
          result = args.length > 0
            ? nextMethod.call(syncIterator, args[0])
            : nextMethod.call(syncIterator);
          if (!isObj(result)) throw new TypeErrorCtor('the iterator result is not an object');
        } catch (e) { cap.reject(e); return cap.promise; }
        return continuation(result, cap, syncIterator, true);
      },
      return(...args) {
        const cap = newCapability();
        let ret;
        try {
          ret = syncIterator.return;
          if (ret === null) ret = undefined;
          if (ret !== undefined && typeof ret !== 'function') {
            throw new TypeErrorCtor('return is not a function');
          }
        } catch (e) { cap.reject(e); return cap.promise; }
        if (ret === undefined) {
          cap.resolve({ value: args[0], done: true });
          return cap.promise;
        }
        let result;
        try {
          result = args.length > 0 ? ret.call(syncIterator, args[0]) : ret.call(syncIterator);
        } catch (e) { cap.reject(e); return cap.promise; }
        if (!isObj(result)) {
          cap.reject(new TypeErrorCtor('the iterator result is not an object'));
          return cap.promise;
        }
        return continuation(result, cap, syncIterator, false);
      },
    };
  };

  globalThis.__sdOpenAsyncSequence = (object, method, type, itemConverter, errPrefix, call,
                                      isObject, getMethod) => {
    // GetIteratorFromMethod(sequence's object, sequence's method).
    let iterator = call(method, object);
    if (!isObject(iterator)) throw new TypeErrorCtor(`${errPrefix}'s method must return an object`);
    let nextMethod = iterator.next;
    // If the type is "sync", CreateAsyncFromSyncIterator.
    if (type === 'sync') {
      iterator = globalThis.__sdCreateAsyncFromSyncIterator(iterator, nextMethod);
      nextMethod = iterator.next;
    }
    const endOfIteration = Symbol('end of iteration');
    return {
      endOfIteration,
      // Get the next value.
      getTheNextValue() {
        let nextResult;
        try { nextResult = call(nextMethod, iterator); } catch (e) { return rejected(e); }
        const nextPromise = new P(resolve => resolve(nextResult));
        return then.call(nextPromise, iterResult => {
          if (!isObject(iterResult)) throw new TypeErrorCtor(`${errPrefix}'s next method must return an object`);
          if (iterResult.done) return endOfIteration;
          return itemConverter(iterResult.value);
        });
      },
      // Close an async iterator with reason.
      close(reason) {
        let returnMethod;
        try { returnMethod = getMethod(iterator, 'return', errPrefix); } catch (e) { return rejected(e); }
        if (returnMethod === undefined) return new P(resolve => resolve(undefined));
        let returnResult;
        try { returnResult = call(returnMethod, iterator, reason); } catch (e) { return rejected(e); }
        const returnPromise = new P(resolve => resolve(returnResult));
        return then.call(returnPromise, r => {
          if (!isObject(r)) throw new TypeErrorCtor(`${errPrefix}'s return method must return an object`);
          return undefined;
        });
      },
      [Symbol.asyncIterator]() { return this; },
    };
  };
})();
"#;

impl Correction {
    /// The class a divergence that this correction removes belongs to.
    pub fn name(self) -> &'static str {
        match self {
            Correction::SyncWrite => "sync-write-in-enqueue",
            Correction::AsyncSequence => "async-sequence-timing",
            Correction::ReadAfterShutdown => "read-after-shutdown",
            Correction::ClearedAlgorithm => "cleared-algorithm",
        }
    }

    /// The correction a class name (with or without its `reference-` prefix) names.
    pub fn from_name(name: &str) -> Option<Correction> {
        let name = name.strip_prefix("reference-").unwrap_or(name);
        Correction::ALL.into_iter().find(|c| c.name() == name)
    }

    fn patches(self) -> &'static [Patch] {
        match self {
            Correction::SyncWrite => SYNC_WRITE,
            Correction::AsyncSequence => ASYNC_SEQUENCE,
            Correction::ReadAfterShutdown => READ_AFTER_SHUTDOWN,
            Correction::ClearedAlgorithm => CLEARED_ALGORITHM,
        }
    }
}

/// The reference source with `corrections` applied.
pub fn corrected(
    source: &ReferenceSource,
    corrections: &[Correction],
) -> Result<ReferenceSource, String> {
    let mut bundle = source.bundle.clone();
    for correction in corrections {
        for patch in correction.patches() {
            let found = bundle.matches(patch.find).count();
            if found != patch.times {
                return Err(format!(
                    "the {} correction expects its text {} times in {}, found it {found} times",
                    correction.name(),
                    patch.times,
                    source.bundle_name
                ));
            }
            bundle = bundle.replace(patch.find, patch.replace);
        }
    }
    Ok(ReferenceSource {
        install: format!("{}\n{PRELUDE}", source.install),
        bundle,
        bundle_name: format!(
            "{} (corrected: {})",
            source.bundle_name,
            corrections
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every correction applies to the reference bundle (each patch found as often as it
    /// expects), alone and all together.
    #[test]
    fn corrections_apply_to_the_bundle() {
        let Ok(source) = crate::load_reference(None) else {
            eprintln!("the reference bundle is not here: skipped");
            return;
        };
        for correction in Correction::ALL {
            let corrected = corrected(&source, &[correction]).expect("applies");
            assert_ne!(
                corrected.bundle, source.bundle,
                "{correction:?} changed nothing"
            );
        }
        let all = corrected(&source, &Correction::ALL).expect("all apply together");
        assert!(all.install.contains("__sdOpenAsyncSequence"));
        assert!(all.bundle.contains("__sdUnwritten.push(write)"));
    }

    /// A bundle without the expected text is an error, not a silent no-op.
    #[test]
    fn a_missing_text_is_an_error() {
        let source = ReferenceSource {
            install: String::new(),
            bundle: "nothing to patch".to_owned(),
            bundle_name: "test".to_owned(),
        };
        let error = corrected(&source, &[Correction::SyncWrite]).expect_err("no such text");
        assert!(error.contains("expects its text 1 times"), "{error}");
    }
}
