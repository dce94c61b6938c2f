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
    /// The reference reacts to promises with `Promise.prototype.then`, which Gets `constructor`
    /// (SpeciesConstructor), and its pipe loop chains promises of its own, each adopted through
    /// a Get of `then` and a call of it; so a script that patches `Promise.prototype.then` or a
    /// `constructor` getter sees the reference's internal steps. WebIDL's "react to a promise"
    /// is PerformPromiseThen with a %Promise% capability and looks nothing up (the reference's
    /// own `PerformPromiseThen` calls itself "just an approximation"), and the pipe's loop "is not
    /// observable to author code" (`ReadableStreamPipeTo`: "Public API must not be used"; WPT
    /// readable-streams/patched-global.any.js "pipeTo() should not call
    /// Promise.prototype.then()"). Corrected: reactions through a native PerformPromiseThen
    /// (`__sdPerformPromiseThen`, stream-diff's own), as are the webidl2js async iterator's, and a
    /// promise of the reference's own that an internal reaction returns (the pipe loop's step
    /// and its wait for writes, a transform stream's write waiting on the backpressure change)
    /// is adopted with the same two jobs but no lookup. The spec's own reactions whose steps return a promise (a transform
    /// stream's write waiting on the backpressure change) adopt it, by WebIDL's letter, through
    /// `then`; boa_streams keeps such promises internal, as WPT's patched-global tests ask of
    /// tee and pipeTo ("should not call Promise.prototype.then()") and as the reference's
    /// pipe loop shows for its own chains. "A promise resolved with" a script's value and the
    /// resolution of a promise script sees with an object (a read result) keep their lookups;
    /// the pipe's internal wait-for-all promise is resolved with undefined, not the results
    /// array whose `then` script could patch (WPT piping/then-interception.any.js: "piping
    /// should not be observable").
    PromiseLookups,
    /// The pipe's abort algorithm is added to the signal as an `abort` event listener
    /// (`signal.addEventListener('abort', abortAlgorithm)`), so `abort()` runs it among the
    /// script's own listeners, in registration order, after those added before `pipeTo`. The
    /// spec: ReadableStreamPipeTo step 14.2 "Add abortAlgorithm to signal" (DOM's "add" of an
    /// abort algorithm), and DOM's "run the abort steps" for a signal: "1. For each algorithm
    /// of signal's abort algorithms: run algorithm. 2. Empty signal's abort algorithms. 3. Fire
    /// an event named abort at signal." Every abort algorithm runs before any listener.
    /// Corrected: the algorithm is added to and removed from the signal's abort algorithms
    /// (`__sdAddAbortAlgorithm` / `__sdRemoveAbortAlgorithm`, stream-diff's own), so it also
    /// no longer goes through the signal's script-visible `addEventListener`.
    AbortAlgorithm,
}

impl Correction {
    /// Every correction, in the order of their bits in a [`crate::diff::Class::Corrected`]
    /// mask.
    pub const ALL: [Correction; 6] = [
        Correction::SyncWrite,
        Correction::AsyncSequence,
        Correction::ReadAfterShutdown,
        Correction::ClearedAlgorithm,
        Correction::PromiseLookups,
        Correction::AbortAlgorithm,
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

const PROMISE_LOOKUPS: &[Patch] = &[
    // WebIDL "react to a promise": PerformPromiseThen, no lookup; a promise of the reference's
    // own that a reaction returns is adopted without lookups.
    Patch {
        find: "  return originalPromiseThen.call(promise, onFulfilled, onRejected);",
        replace: "  return __sdReact(promise, onFulfilled, onRejected);",
        times: 1,
    },
    // The async iterator prototype's next() and return() (WebIDL "asynchronous iterator
    // prototype object"): PerformPromiseThen on nextPromise and on the ongoing promise. The
    // promises these reactions resolve are the ones next() and return() hand to script, so a
    // promise their steps return is adopted as usual, lookups included.
    Patch {
        find: "return nextPromise.then(",
        replace: "return __sdPerformPromiseThen(nextPromise, ",
        times: 1,
    },
    Patch {
        find: "internal.ongoingPromise.then(nextSteps, nextSteps)",
        replace: "__sdPerformPromiseThen(internal.ongoingPromise, nextSteps, nextSteps)",
        times: 1,
    },
    Patch {
        find: "internal.ongoingPromise.then(returnSteps, returnSteps)",
        replace: "__sdPerformPromiseThen(internal.ongoingPromise, returnSteps, returnSteps)",
        times: 1,
    },
    Patch {
        find: "return internal.ongoingPromise.then(() =>",
        replace: "return __sdPerformPromiseThen(internal.ongoingPromise, () =>",
        times: 1,
    },
    // The pipe's abort action, "getting a promise to wait for all" of the actions: an internal
    // promise, which the stock code resolves with the results array, so a patched
    // `Object.prototype.then` is called in the middle of the pipe's shutdown (WPT
    // piping/then-interception.any.js: "piping should not be observable"). Corrected: resolved
    // with undefined, as boa_streams does; nothing reads the value.
    Patch {
        find: "  const successSteps = results => {
    resolvePromise(promise, results);
  };",
        replace: "  const successSteps = () => {
    resolvePromise(promise, undefined);
  };",
        times: 1,
    },
];

const ABORT_ALGORITHM: &[Patch] = &[
    Patch {
        find: "    let abortAlgorithm;
    if (signal !== undefined) {",
        replace: "    let abortAlgorithm;
    let __sdAbortHandle;
    if (signal !== undefined) {",
        times: 1,
    },
    // ReadableStreamPipeTo 14.2: "Add abortAlgorithm to signal."
    Patch {
        find: "      signal.addEventListener('abort', abortAlgorithm);",
        replace: "      __sdAbortHandle = __sdAddAbortAlgorithm(signal, abortAlgorithm);",
        times: 1,
    },
    // Finalize: "If signal is not undefined, remove abortAlgorithm from signal."
    Patch {
        find: "        signal.removeEventListener('abort', abortAlgorithm);",
        replace: "        __sdRemoveAbortAlgorithm(signal, __sdAbortHandle);",
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
  // PerformPromiseThen without lookups (stream-diff's native helper, on every reference side).
  const performThen = globalThis.__sdPerformPromiseThen;
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

  // WebIDL "react to a promise" for the reference's internal steps: PerformPromiseThen with a
  // new %Promise% capability, no lookup. A promise a reaction returns (always one of the
  // reference's own: script values reach reactions only through "a promise resolved with")
  // is adopted with the jobs the Promise Resolve Functions would queue (a
  // NewPromiseResolveThenableJob, then the reaction to it), without their Get of `then` and call
  // of it; any other value resolves the derived promise as usual (an object's `then` is looked
  // up, as the spec's steps do).
  globalThis.__sdReact = (promise, onFulfilled, onRejected) => {
    const cap = newCapability();
    const settle = (handler, value, passOn) => {
      if (typeof handler !== 'function') { passOn(value); return; }
      let result;
      try { result = handler(value); } catch (e) { cap.reject(e); return; }
      if (result instanceof P) {
        queue(() => { performThen(result, cap.resolve, cap.reject); });
      } else {
        cap.resolve(result);
      }
    };
    performThen(promise, v => settle(onFulfilled, v, cap.resolve),
                r => settle(onRejected, r, cap.reject));
    return cap.promise;
  };

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
    performThen(valueWrapper, onFulfilled, onRejected);
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
        return performThen(nextPromise, iterResult => {
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
        return performThen(returnPromise, r => {
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
            Correction::PromiseLookups => "promise-lookups",
            Correction::AbortAlgorithm => "abort-algorithm-as-listener",
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
            Correction::PromiseLookups => PROMISE_LOOKUPS,
            Correction::AbortAlgorithm => ABORT_ALGORITHM,
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
