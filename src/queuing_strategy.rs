//! Queuing strategies: `ByteLengthQueuingStrategy`, `CountQueuingStrategy`, and the abstract
//! operations that read a `QueuingStrategy` dictionary.
//!
//! <https://streams.spec.whatwg.org/#qs>

use crate::engine;
use crate::engine::{js_string, Cx, JsResult, Object, Value};

use crate::engine::webidl;

traced! {
    /// The `QueuingStrategy` dictionary, converted: <https://streams.spec.whatwg.org/#dictdef-queuingstrategy>.
    #[derive(Debug, Clone, Default)]
    pub(crate) struct QueuingStrategy {
        pub(crate) high_water_mark: Option<f64>,
        pub(crate) size: Option<Object>,
    }
}

impl QueuingStrategy {
    /// Converts a JS value to the `QueuingStrategy` dictionary (members in lexicographic order:
    /// `highWaterMark`, then `size`).
    pub(crate) fn from_js(value: &Value, ctx: &mut Cx) -> JsResult<Self> {
        let dict = webidl::dictionary(value, "The queuing strategy")?;
        let hwm = webidl::member(dict.as_ref(), "highWaterMark", ctx)?;
        let high_water_mark = if hwm.is_undefined() {
            None
        } else {
            Some(webidl::to_unrestricted_double(&hwm, ctx)?)
        };
        let size = webidl::member(dict.as_ref(), "size", ctx)?;
        let size = webidl::callback(size, "The queuing strategy's size")?;
        Ok(Self {
            high_water_mark,
            size,
        })
    }
}

traced! {
    /// A size algorithm, as held in a controller's [[strategySizeAlgorithm]] slot.
    #[derive(Debug, Clone)]
    pub(crate) enum SizeAlgorithm {
        /// An algorithm that returns 1.
        One,
        /// Invoke the strategy's `size` callback.
        Callback(Object),
    }
}

impl SizeAlgorithm {
    /// Runs the algorithm: invoke the callback (return type `unrestricted double`) with `chunk`.
    pub(crate) fn perform(&self, chunk: &Value, ctx: &mut Cx) -> JsResult<f64> {
        match self {
            SizeAlgorithm::One => Ok(1.0),
            SizeAlgorithm::Callback(f) => {
                let v = crate::engine::call_object(
                    f,
                    &Value::undefined(),
                    std::slice::from_ref(chunk),
                    ctx,
                )?;
                webidl::to_unrestricted_double(&v, ctx)
            }
        }
    }
}

/// <https://streams.spec.whatwg.org/#validate-and-normalize-high-water-mark>
pub(crate) fn extract_high_water_mark(
    strategy: &QueuingStrategy,
    default_hwm: f64,
) -> JsResult<f64> {
    // 1. If strategy["highWaterMark"] does not exist, return defaultHWM.
    let Some(high_water_mark) = strategy.high_water_mark else {
        return Ok(default_hwm);
    };
    // 2. Let highWaterMark be strategy["highWaterMark"].
    // 3. If highWaterMark is NaN or highWaterMark < 0, throw a RangeError exception.
    if high_water_mark.is_nan() || high_water_mark < 0.0 {
        return Err(engine::throw_range_error(
            "highWaterMark must be a non-negative number",
        ));
    }
    // 4. Return highWaterMark.
    Ok(high_water_mark)
}

/// <https://streams.spec.whatwg.org/#make-size-algorithm-from-size-function>
pub(crate) fn extract_size_algorithm(strategy: &QueuingStrategy) -> SizeAlgorithm {
    match &strategy.size {
        // 1. If strategy["size"] does not exist, return an algorithm that returns 1.
        None => SizeAlgorithm::One,
        // 2. Return an algorithm that invokes strategy["size"] with « chunk ».
        Some(f) => SizeAlgorithm::Callback(f.clone()),
    }
}

/// Reads the required `highWaterMark` member of a `QueuingStrategyInit` dictionary.
fn queuing_strategy_init(args: &[Value], ctx: &mut Cx) -> JsResult<f64> {
    let init = args.first().cloned().unwrap_or_default();
    let dict = webidl::dictionary(&init, "The queuing strategy init")?;
    let hwm = webidl::member(dict.as_ref(), "highWaterMark", ctx)?;
    if hwm.is_undefined() {
        return Err(engine::throw_type_error("highWaterMark is required"));
    }
    webidl::to_unrestricted_double(&hwm, ctx)
}

traced! {
    data;
    /// The per-realm size functions: each getter returns the same function object for every
    /// instance in a realm (the spec's "relevant global object's … size function").
    #[derive(Debug)]
    struct SizeFunctions {
        /// <https://streams.spec.whatwg.org/#byte-length-queuing-strategy-size-function>
        byte_length: Object,
        /// <https://streams.spec.whatwg.org/#count-queuing-strategy-size-function>
        count: Object,
    }
}

fn size_functions(ctx: &mut Cx) -> (Object, Object) {
    if let Some(functions) = engine::with_realm_data::<SizeFunctions, _>(ctx, |f| {
        (f.byte_length.clone(), f.count.clone())
    }) {
        return functions;
    }
    // The byte length size function: `return ? GetV(chunk, "byteLength")`.
    let byte_length = webidl::function(ctx, "size", 1, |_, args, ctx| {
        let chunk = args.first().cloned().unwrap_or_default();
        let object = chunk.to_object(ctx)?;
        object.get(js_string!("byteLength"), ctx)
    });
    // The count size function: `return 1`.
    let count = webidl::function(ctx, "size", 0, |_, _, _| Ok(Value::from(1)));
    let (byte_length, count): (Object, Object) = (byte_length.into(), count.into());
    engine::set_realm_data(
        ctx,
        SizeFunctions {
            byte_length: byte_length.clone(),
            count: count.clone(),
        },
    );
    (byte_length, count)
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#blqs-class>
    #[derive(Debug)]
    pub(crate) struct ByteLengthQueuingStrategy {
        /// <https://streams.spec.whatwg.org/#bytelengthqueuingstrategy-highwatermark>
        high_water_mark: f64,
    }
}

impl webidl::ClassInterface for ByteLengthQueuingStrategy {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("highWaterMark", blqs_high_water_mark, None);
        b.attribute("size", blqs_size, None);
    }

    /// <https://streams.spec.whatwg.org/#blqs-constructor>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // 1. Set this.[[highWaterMark]] to init["highWaterMark"].
        Ok(Self {
            high_water_mark: queuing_strategy_init(args, ctx)?,
        })
    }
}

webidl::interface!(ByteLengthQueuingStrategy, "ByteLengthQueuingStrategy");

/// <https://streams.spec.whatwg.org/#blqs-high-water-mark>
fn blqs_high_water_mark(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<ByteLengthQueuingStrategy>(this)?;
    let hwm = this.borrow().data().high_water_mark;
    Ok(hwm.into())
}

/// <https://streams.spec.whatwg.org/#blqs-size>
fn blqs_size(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::this::<ByteLengthQueuingStrategy>(this)?;
    Ok(size_functions(ctx).0.into())
}

traced! {
    data;
    /// <https://streams.spec.whatwg.org/#cqs-class>
    #[derive(Debug)]
    pub(crate) struct CountQueuingStrategy {
        /// <https://streams.spec.whatwg.org/#countqueuingstrategy-highwatermark>
        high_water_mark: f64,
    }
}

impl webidl::ClassInterface for CountQueuingStrategy {
    const LENGTH: usize = 1;
    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.attribute("highWaterMark", cqs_high_water_mark, None);
        b.attribute("size", cqs_size, None);
    }

    /// <https://streams.spec.whatwg.org/#cqs-constructor>
    fn construct(_: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Self> {
        // 1. Set this.[[highWaterMark]] to init["highWaterMark"].
        Ok(Self {
            high_water_mark: queuing_strategy_init(args, ctx)?,
        })
    }
}

webidl::interface!(CountQueuingStrategy, "CountQueuingStrategy");

/// <https://streams.spec.whatwg.org/#cqs-high-water-mark>
fn cqs_high_water_mark(this: &Value, _: &[Value], _: &mut Cx) -> JsResult<Value> {
    let this = webidl::this::<CountQueuingStrategy>(this)?;
    let hwm = this.borrow().data().high_water_mark;
    Ok(hwm.into())
}

/// <https://streams.spec.whatwg.org/#cqs-size>
fn cqs_size(this: &Value, _: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    webidl::this::<CountQueuingStrategy>(this)?;
    Ok(size_functions(ctx).1.into())
}

/// Installs both strategy interfaces in the current realm.
pub(crate) fn register(ctx: &mut Cx) -> JsResult<()> {
    webidl::register_interface::<ByteLengthQueuingStrategy>(ctx)?;
    webidl::register_interface::<CountQueuingStrategy>(ctx)?;
    Ok(())
}
