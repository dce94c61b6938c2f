//! HTML's structured serialization with transfer, into a record that owns no JS value (so it can
//! cross threads), and structured deserialization with transfer into the current realm.
//!
//! <https://html.spec.whatwg.org/multipage/structured-data.html#safe-passing-of-structured-data>
//!
//! Object identity is kept the way the spec's memory map keeps it: every object record takes
//! the next index when it is made (a view after its buffer; a Map, Set, Array or Object before
//! its contents), and a later occurrence of the same object is a [`Record::Ref`] to that index.
//! The deserializer assigns indices in the same order, so cycles and shared objects come back
//! as such. Transferred objects are [`Record::Transferred`] references to a data holder.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

use crate::engine::clone::{self, ByteBlock, ObjectKind, Primitive, ViewedBuffer};
use crate::engine::{Cx, JsError, JsResult, JsString, Object, TypedArrayKind, Value, ViewKind};

use super::{data_clone_error, message_port, port::PortCore};

/// A serialized value: what StructuredSerializeInternal returns, with strings as UTF-16 code
/// units and buffers as owned bytes.
#[derive(Debug)]
pub(crate) enum Record {
    Undefined,
    Null,
    Boolean(bool),
    Number(f64),
    BigInt(String),
    String(Vec<u16>),
    /// The object record with this index (the memory map).
    Ref(u32),
    /// The transfer data holder with this index.
    Transferred(u32),
    BooleanObject(bool),
    NumberObject(f64),
    BigIntObject(String),
    StringObject(Vec<u16>),
    Date(f64),
    RegExp {
        source: Vec<u16>,
        flags: String,
    },
    ArrayBuffer(ByteBlock),
    View {
        kind: ViewKind,
        buffer: Box<Record>,
        byte_offset: u64,
        /// [[ArrayLength]] (the byte length for a `DataView`).
        length: u64,
    },
    Map(Vec<(Record, Record)>),
    Set(Vec<Record>),
    Error {
        name: &'static str,
        message: Option<Vec<u16>>,
    },
    DomException {
        name: Vec<u16>,
        message: Vec<u16>,
        /// A `QuotaExceededError`'s [[Quota]] and [[Requested]] (`None` for another
        /// `DOMException`).
        quota: Option<crate::dom::Quota>,
    },
    Array {
        length: u32,
        properties: Vec<(Vec<u16>, Record)>,
    },
    Object(Vec<(Vec<u16>, Record)>),
    /// A serializable platform object of another standard: its interface and what its
    /// serialization steps left.
    Platform(PlatformRecord),
}

/// What a [`SerializableInterface`]'s serialization steps leave: plain `Send` data only its
/// deserialization steps read.
pub(crate) struct PlatformRecord {
    interface: &'static SerializableInterface,
    data: Box<dyn std::any::Any + Send>,
}

impl std::fmt::Debug for PlatformRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PlatformRecord({})", self.interface.name)
    }
}

/// A serializable interface of another standard (HTML's `[Serializable]` platform objects
/// other than `DOMException`: the File API's `Blob` and `File`). HTML knows them only through
/// this table: [`register_serializable`] adds one.
pub(crate) struct SerializableInterface {
    /// The interface's name.
    pub(crate) name: &'static str,
    /// Whether an object implements the interface.
    pub(crate) implements: fn(&Object) -> bool,
    /// The serialization steps, given the object (forStorage false): the serialized data.
    pub(crate) serialization_steps: fn(&Object, &mut Cx) -> JsResult<Box<dyn std::any::Any + Send>>,
    /// The deserialization steps: a new object of the interface in the current realm, made
    /// from the serialized data.
    pub(crate) deserialization_steps:
        fn(Box<dyn std::any::Any + Send>, &mut Cx) -> JsResult<Object>,
}

/// The serializable interfaces of other standards, in the order they were registered.
static SERIALIZABLE_INTERFACES: RwLock<Vec<&'static SerializableInterface>> =
    RwLock::new(Vec::new());

/// Makes `interface` serializable (once; registering it again does nothing).
pub(crate) fn register_serializable(interface: &'static SerializableInterface) {
    let mut interfaces = SERIALIZABLE_INTERFACES
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !interfaces.iter().any(|i| std::ptr::eq(*i, interface)) {
        interfaces.push(interface);
    }
}

/// The registered serializable interface `object` implements.
fn serializable_interface(object: &Object) -> Option<&'static SerializableInterface> {
    SERIALIZABLE_INTERFACES
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .copied()
        .find(|interface| (interface.implements)(object))
}

/// A transfer data holder: what a transferred object's transfer steps leave for its
/// transfer-receiving steps.
#[derive(Debug)]
pub(crate) enum TransferHolder {
    /// An `ArrayBuffer`'s data block (moved, not copied).
    ArrayBuffer(ByteBlock),
    /// A `MessagePort`: its port message queue and entanglement.
    MessagePort(Arc<PortCore>),
    /// An object of another standard's transferable interface: the records its transfer steps
    /// left (a `ReadableStream`'s or `WritableStream`'s dataHolder.[[port]], a
    /// `TransformStream`'s dataHolder.[[readable]] and dataHolder.[[writable]]).
    Interface(&'static TransferableInterface, Vec<SerializedWithTransfer>),
}

/// A transferable interface of another standard (HTML's `[Transferable]` platform objects
/// other than `ArrayBuffer` and `MessagePort`: the Streams Standard's streams). HTML knows
/// them only through this table: [`register_transferable`] adds one.
pub(crate) struct TransferableInterface {
    /// The interface's name.
    pub(crate) name: &'static str,
    /// Whether an object implements the interface.
    pub(crate) implements: fn(&Object) -> bool,
    /// The object's [[Detached]] slot.
    pub(crate) is_detached: fn(&Object) -> bool,
    /// Sets [[Detached]] to true.
    pub(crate) set_detached: fn(&Object),
    /// The transfer steps, given the object: the data holder's records.
    pub(crate) transfer_steps: fn(&Object, &mut Cx) -> JsResult<Vec<SerializedWithTransfer>>,
    /// A new instance of the interface in the current realm (`None` when the interface is not
    /// exposed there).
    pub(crate) new_instance: fn(&mut Cx) -> Option<Object>,
    /// The transfer-receiving steps, given the data holder's records and the new instance.
    pub(crate) transfer_receiving_steps:
        fn(Vec<SerializedWithTransfer>, &Object, &mut Cx) -> JsResult<()>,
}

impl std::fmt::Debug for TransferableInterface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The transferable interfaces of other standards, in the order they were registered.
static TRANSFERABLE_INTERFACES: RwLock<Vec<&'static TransferableInterface>> =
    RwLock::new(Vec::new());

/// Makes `interface` transferable (once; registering it again does nothing).
pub(crate) fn register_transferable(interface: &'static TransferableInterface) {
    let mut interfaces = TRANSFERABLE_INTERFACES
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !interfaces.iter().any(|i| std::ptr::eq(*i, interface)) {
        interfaces.push(interface);
    }
}

/// The registered interface `object` implements.
fn transferable_interface(object: &Object) -> Option<&'static TransferableInterface> {
    TRANSFERABLE_INTERFACES
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .copied()
        .find(|interface| (interface.implements)(object))
}

/// What StructuredSerializeWithTransfer returns: { [[Serialized]], [[TransferDataHolders]] }.
#[derive(Debug)]
pub(crate) struct SerializedWithTransfer {
    pub(crate) serialized: Record,
    pub(crate) holders: Vec<TransferHolder>,
}

impl SerializedWithTransfer {
    /// A record of a value with no transfer.
    pub(crate) fn plain(serialized: Record) -> Self {
        Self {
            serialized,
            holders: Vec::new(),
        }
    }

    /// Every port core this record carries (also inside transferred streams' data holders).
    pub(crate) fn for_each_port(&self, f: &mut dyn FnMut(&Arc<PortCore>)) {
        for holder in &self.holders {
            match holder {
                TransferHolder::ArrayBuffer(_) => {}
                TransferHolder::MessagePort(core) => f(core),
                TransferHolder::Interface(_, records) => {
                    for record in records {
                        record.for_each_port(f);
                    }
                }
            }
        }
    }
}

fn units(s: &JsString) -> Vec<u16> {
    s.to_vec()
}

fn string(units: &[u16]) -> JsString {
    JsString::from(units)
}

/// The transferable platform objects.
enum Transferable {
    ArrayBuffer(crate::engine::JsArrayBuffer),
    MessagePort(Object),
    Interface(&'static TransferableInterface, Object),
}

fn transferable(object: &Object) -> Option<Transferable> {
    if let Some(buffer) = clone::as_array_buffer(object) {
        return Some(Transferable::ArrayBuffer(buffer));
    }
    if message_port::is_message_port(object) {
        return Some(Transferable::MessagePort(object.clone()));
    }
    transferable_interface(object)
        .map(|interface| Transferable::Interface(interface, object.clone()))
}

/// A memory map entry.
#[derive(Clone, Copy)]
enum Slot {
    Object(u32),
    Transfer(u32),
}

#[derive(Default)]
struct Serializer {
    memory: HashMap<Object, Slot>,
    next_index: u32,
}

impl Serializer {
    fn remember(&mut self, object: &Object) {
        self.memory
            .insert(object.clone(), Slot::Object(self.next_index));
        self.next_index += 1;
    }

    /// <https://html.spec.whatwg.org/multipage/structured-data.html#structuredserializeinternal>
    /// (forStorage false).
    fn serialize(&mut self, value: &Value, ctx: &mut Cx) -> JsResult<Record> {
        // 3. If value is undefined, null, a Boolean, a Number, a BigInt, or a String, return
        //    { [[Type]]: "primitive", [[Value]]: value }.
        // 4. If value is a Symbol, then throw a "DataCloneError" DOMException.
        let Some(object) = value.as_object() else {
            return Ok(match clone::primitive(value) {
                Some(Primitive::Undefined) | None => Record::Undefined,
                Some(Primitive::Null) => Record::Null,
                Some(Primitive::Boolean(b)) => Record::Boolean(b),
                Some(Primitive::Number(n)) => Record::Number(n),
                Some(Primitive::BigInt(digits)) => Record::BigInt(digits),
                Some(Primitive::String(s)) => Record::String(units(&s)),
                Some(Primitive::Symbol) => {
                    return Err(data_clone_error(ctx, "a Symbol cannot be cloned")?)
                }
            });
        };
        // 1. If memory[value] exists, then return memory[value].
        match self.memory.get(&object) {
            Some(Slot::Object(index)) => return Ok(Record::Ref(*index)),
            Some(Slot::Transfer(index)) => return Ok(Record::Transferred(*index)),
            None => {}
        }
        // 2. Let deep be false.
        // 5. Let serialized be an uninitialized value.
        // A serializable platform object: DOMException's serialization steps, and for a
        // QuotaExceededError then serialized.[[Quota]] and [[Requested]] set to its quota and
        // requested.
        if crate::dom::is_dom_exception(value) {
            let name = crate::dom::dom_exception_name(value).unwrap_or_default();
            let message = crate::dom::dom_exception_message(value).unwrap_or_default();
            self.remember(&object);
            return Ok(Record::DomException {
                name: units(&name),
                message: units(&message),
                quota: crate::dom::quota_exceeded_error_slots(value),
            });
        }
        // 18. Otherwise, if value is a platform object that is a serializable object: its
        //     serialization steps, given value, serialized, and forStorage.
        if let Some(interface) = serializable_interface(&object) {
            let data = (interface.serialization_steps)(&object, ctx)?;
            self.remember(&object);
            return Ok(Record::Platform(PlatformRecord { interface, data }));
        }
        let kind = clone::object_kind(&object, ctx)?;
        let record = match kind {
            // 6-9. Primitive wrappers.
            ObjectKind::Boolean(b) => Record::BooleanObject(b),
            ObjectKind::Number(n) => Record::NumberObject(n),
            ObjectKind::BigInt(digits) => Record::BigIntObject(digits),
            ObjectKind::String(s) => Record::StringObject(units(&s)),
            // 10. [[DateValue]].
            ObjectKind::Date(time) => Record::Date(time),
            // 11. [[RegExpMatcher]].
            ObjectKind::RegExp { source, flags } => Record::RegExp {
                source: units(&source),
                flags,
            },
            // 12. [[ArrayBufferData]].
            ObjectKind::SharedArrayBuffer => {
                // 12.1. IsSharedArrayBuffer(value): this agent cluster is not cross-origin
                //       isolated, so throw a "DataCloneError" DOMException.
                return Err(data_clone_error(
                    ctx,
                    "a SharedArrayBuffer cannot be cloned outside a cross-origin isolated context",
                )?);
            }
            ObjectKind::ArrayBuffer(buffer) => {
                // 12.2.1. If IsDetachedBuffer(value) is true, throw a "DataCloneError".
                // 12.2.2-5. A copy of the bytes.
                match clone::copy_buffer_bytes(&buffer) {
                    Some(bytes) => Record::ArrayBuffer(bytes),
                    None => {
                        return Err(data_clone_error(
                            ctx,
                            "a detached ArrayBuffer cannot be cloned",
                        )?)
                    }
                }
            }
            // 13. [[ViewedArrayBuffer]].
            ObjectKind::View {
                kind,
                buffer,
                byte_offset,
                array_length,
                out_of_bounds,
            } => {
                // 13.1. If IsArrayBufferViewOutOfBounds(value) is true, then throw a
                //       "DataCloneError" DOMException.
                let buffer = match buffer {
                    ViewedBuffer::Buffer(buffer) => buffer,
                    ViewedBuffer::Shared => {
                        return Err(data_clone_error(
                            ctx,
                            "a view on a SharedArrayBuffer cannot be cloned outside a cross-origin isolated context",
                        )?)
                    }
                };
                if crate::engine::is_detached_buffer(&buffer) {
                    return Err(data_clone_error(
                        ctx,
                        "a view on a detached ArrayBuffer cannot be cloned",
                    )?);
                }
                if out_of_bounds {
                    return Err(data_clone_error(
                        ctx,
                        "a view out of the bounds of its ArrayBuffer cannot be cloned",
                    )?);
                }
                // 13.2. Let buffer be the value of value's [[ViewedArrayBuffer]] internal slot.
                // 13.3. Let bufferSerialized be ? StructuredSerializeInternal(buffer,
                //       forStorage, memory).
                let buffer_object: Object = buffer.into();
                let buffer_record = self.serialize(&buffer_object.into(), ctx)?;
                // 13.4-5. { [[Type]]: "ArrayBufferView", [[Constructor]],
                //         [[ArrayBufferSerialized]], [[ByteLength]], [[ByteOffset]],
                //         [[ArrayLength]] }.
                Record::View {
                    kind,
                    buffer: Box::new(buffer_record),
                    byte_offset,
                    length: array_length,
                }
            }
            // 14-15. [[MapData]], [[SetData]]: deep.
            ObjectKind::Map => {
                self.remember(&object);
                return self.serialize_map(&object, ctx);
            }
            ObjectKind::Set => {
                self.remember(&object);
                return self.serialize_set(&object, ctx);
            }
            // 16. [[ErrorData]], not a platform object.
            ObjectKind::Error => {
                // 16.1. Let name be ? Get(value, "name").
                let name = object.get(crate::engine::js_string!("name"), ctx)?;
                // 16.2. If name is not one of "Error", "EvalError", "RangeError",
                //       "ReferenceError", "SyntaxError", "TypeError", or "URIError", then set
                //       name to "Error".
                let name = clone::ERROR_NAMES
                    .iter()
                    .find(|n| name.as_string().is_some_and(|s| s == **n))
                    .copied()
                    .unwrap_or("Error");
                // 16.3. Let valueMessageDesc be ? value.[[GetOwnProperty]]("message").
                // 16.4-5. If IsDataDescriptor(valueMessageDesc), message is
                //         ? ToString(valueMessageDesc.[[Value]]).
                let message = match clone::own_data_property(
                    &object,
                    &clone::property_key(crate::engine::js_string!("message")),
                ) {
                    Some(message) => Some(units(&message.to_string(ctx)?)),
                    None => None,
                };
                // 16.6. { [[Type]]: "Error", [[Name]]: name, [[Message]]: message }.
                Record::Error { name, message }
            }
            // 17. An Array exotic object: deep.
            ObjectKind::Array => {
                // 17.1-2. Let valueLen be ! OrdinaryGetOwnProperty(value, "length").[[Value]].
                let length = clone::array_length(&object, ctx)?;
                self.remember(&object);
                let properties = self.serialize_properties(&object, ctx)?;
                return Ok(Record::Array { length, properties });
            }
            // 18-19. Other platform objects, 20. callables, 21. other internal slots,
            // 22. exotic objects: throw a "DataCloneError" DOMException.
            ObjectKind::Symbol | ObjectKind::Callable | ObjectKind::Other => {
                return Err(data_clone_error(
                    ctx,
                    &format!("{} could not be cloned", describe(&object, value)),
                )?);
            }
            // 23. Otherwise: an ordinary object, deep.
            ObjectKind::Ordinary => {
                self.remember(&object);
                let properties = self.serialize_properties(&object, ctx)?;
                return Ok(Record::Object(properties));
            }
        };
        // 24. Set memory[value] to serialized.
        self.remember(&object);
        Ok(record)
    }

    /// Step 26.1 for a Map.
    fn serialize_map(&mut self, object: &Object, ctx: &mut Cx) -> JsResult<Record> {
        // 26.1.1. Let copiedList be a new empty List.
        // 26.1.2. For each Record { [[Key]], [[Value]] } entry of value.[[MapData]]: if
        //         entry.[[Key]] is not the special value empty, append it to copiedList.
        let copied = clone::map_entries(object)?;
        // 26.1.3. For each entry of copiedList: serialize the key, then the value.
        let mut entries = Vec::with_capacity(copied.len());
        for (key, value) in copied {
            let key = self.serialize(&key, ctx)?;
            let value = self.serialize(&value, ctx)?;
            entries.push((key, value));
        }
        Ok(Record::Map(entries))
    }

    /// Step 26.2 for a Set.
    fn serialize_set(&mut self, object: &Object, ctx: &mut Cx) -> JsResult<Record> {
        let copied = clone::set_entries(object)?;
        let mut entries = Vec::with_capacity(copied.len());
        for value in copied {
            entries.push(self.serialize(&value, ctx)?);
        }
        Ok(Record::Set(entries))
    }

    /// Step 26.4: the own enumerable string-keyed properties.
    fn serialize_properties(
        &mut self,
        object: &Object,
        ctx: &mut Cx,
    ) -> JsResult<Vec<(Vec<u16>, Record)>> {
        // 26.4.1. Let properties be a new empty List.
        let mut properties = Vec::new();
        // 26.4.2. For each key in ! EnumerableOwnProperties(value, key):
        for key in clone::enumerable_own_keys(object, ctx)? {
            // 26.4.2.1. If ! HasOwnProperty(value, key) is true:
            if object.has_own_property(key.clone(), ctx)? {
                // 26.4.2.1.1. Let inputValue be ? value.[[Get]](key, value).
                let input = object.get(key.clone(), ctx)?;
                // 26.4.2.1.2. Let outputValue be ? StructuredSerializeInternal(inputValue,
                //             forStorage, memory).
                let output = self.serialize(&input, ctx)?;
                // 26.4.2.1.3. Append { [[Key]]: key, [[Value]]: outputValue } to properties.
                properties.push((units(&clone::property_key_string(&key)), output));
            }
        }
        Ok(properties)
    }
}

/// A short description of an object that cannot be cloned, for the DataCloneError message.
fn describe(object: &Object, value: &Value) -> &'static str {
    if object.is_callable() {
        "a function"
    } else if value
        .as_object()
        .is_some_and(|o| message_port::is_message_port(&o))
        || transferable(object).is_some()
    {
        "a transferable object that is not in the transfer list"
    } else {
        "the value"
    }
}

/// <https://html.spec.whatwg.org/multipage/structured-data.html#structuredserializewithtransfer>
pub(crate) fn structured_serialize_with_transfer(
    value: &Value,
    transfer_list: &[Object],
    ctx: &mut Cx,
) -> JsResult<SerializedWithTransfer> {
    // 1. Let memory be an empty map.
    let mut serializer = Serializer::default();
    let mut transferables = Vec::with_capacity(transfer_list.len());
    // 2. For each transferable of transferList:
    for (index, object) in transfer_list.iter().enumerate() {
        // 2.1. If transferable has neither an [[ArrayBufferData]] internal slot nor a
        //      [[Detached]] internal slot, then throw a "DataCloneError" DOMException.
        // 2.2. If transferable has an [[ArrayBufferData]] internal slot and
        //      IsSharedArrayBuffer(transferable) is true, then throw a "DataCloneError".
        let Some(kind) = transferable(object) else {
            let message = if clone::is_shared_array_buffer(object) {
                "a SharedArrayBuffer cannot be transferred"
            } else {
                "the transfer list holds an object that is not transferable"
            };
            return Err(data_clone_error(ctx, message)?);
        };
        // 2.3. If memory[transferable] exists, then throw a "DataCloneError" DOMException.
        if serializer.memory.contains_key(object) {
            return Err(data_clone_error(
                ctx,
                "the transfer list holds the same object twice",
            )?);
        }
        // 2.4. Set memory[transferable] to { [[Type]]: an uninitialized value }.
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        serializer
            .memory
            .insert(object.clone(), Slot::Transfer(index));
        transferables.push(kind);
    }
    // 3. Let serialized be ? StructuredSerializeInternal(value, false, memory).
    let serialized = serializer.serialize(value, ctx)?;
    // 4. Let transferDataHolders be a new empty List.
    let mut holders = Vec::with_capacity(transferables.len());
    // 5. For each transferable of transferList:
    for transferable in transferables {
        let holder = match transferable {
            Transferable::ArrayBuffer(buffer) => {
                // 5.1. If IsDetachedBuffer(transferable) is true, throw a "DataCloneError".
                if crate::engine::is_detached_buffer(&buffer) {
                    return Err(data_clone_error(
                        ctx,
                        "a detached ArrayBuffer cannot be transferred",
                    )?);
                }
                // 5.4. [[ArrayBufferData]] ..., then ? DetachArrayBuffer(transferable).
                TransferHolder::ArrayBuffer(clone::detach_array_buffer(&buffer)?)
            }
            Transferable::MessagePort(port) => {
                // 5.2. If transferable has a [[Detached]] internal slot and
                //      transferable.[[Detached]] is true, throw a "DataCloneError".
                if message_port::is_detached(&port) {
                    return Err(data_clone_error(ctx, "the MessagePort is detached")?);
                }
                // 5.5. Perform the transfer steps for the interface, given transferable and
                //      dataHolder.
                let core = message_port::message_port_transfer_steps(&port, ctx)?;
                // 5.6. Set transferable.[[Detached]] to true.
                message_port::set_detached(&port);
                TransferHolder::MessagePort(core)
            }
            Transferable::Interface(interface, object) => {
                // 5.2. If transferable has a [[Detached]] internal slot and
                //      transferable.[[Detached]] is true, throw a "DataCloneError".
                if (interface.is_detached)(&object) {
                    let message = format!("the {} is detached", interface.name);
                    return Err(data_clone_error(ctx, &message)?);
                }
                // 5.5. Perform the transfer steps for the interface, given transferable and
                //      dataHolder.
                let records = (interface.transfer_steps)(&object, ctx)?;
                // 5.6. Set transferable.[[Detached]] to true.
                (interface.set_detached)(&object);
                TransferHolder::Interface(interface, records)
            }
        };
        // 5.7. Append dataHolder to transferDataHolders.
        holders.push(holder);
    }
    // 6. Return { [[Serialized]]: serialized, [[TransferDataHolders]]: transferDataHolders }.
    Ok(SerializedWithTransfer {
        serialized,
        holders,
    })
}

/// What StructuredDeserializeWithTransfer returns.
pub(crate) struct Deserialized {
    /// [[Deserialized]].
    pub(crate) value: Value,
    /// [[TransferredValues]].
    pub(crate) transferred: Vec<Value>,
}

struct Deserializer {
    /// The objects made so far, by index (the memory map).
    objects: Vec<Object>,
    /// The index of `objects[0]` (records made before it are not deserialized here).
    offset: u32,
    /// The transferred values, by data holder index.
    transferred: Vec<Value>,
}

impl Deserializer {
    fn remember(&mut self, object: &Object) {
        self.objects.push(object.clone());
    }

    fn malformed(ctx: &mut Cx) -> JsResult<JsError> {
        data_clone_error(ctx, "the serialized data is malformed")
    }

    /// <https://html.spec.whatwg.org/multipage/structured-data.html#structureddeserialize>
    /// into the current realm.
    fn deserialize(&mut self, record: Record, ctx: &mut Cx) -> JsResult<Value> {
        let object = match record {
            Record::Undefined => return Ok(Value::undefined()),
            Record::Null => return Ok(Value::null()),
            Record::Boolean(b) => return Ok(b.into()),
            Record::Number(n) => return Ok(n.into()),
            Record::BigInt(digits) => {
                return Ok(clone::primitive_value(&Primitive::BigInt(digits)))
            }
            Record::String(s) => return Ok(string(&s).into()),
            // 1. If memory[serialized] exists, then return memory[serialized].
            Record::Ref(index) => {
                let index = index.checked_sub(self.offset).unwrap_or(u32::MAX);
                return match self.objects.get(index as usize) {
                    Some(object) => Ok(object.clone().into()),
                    None => Err(Self::malformed(ctx)?),
                };
            }
            Record::Transferred(index) => {
                return match self.transferred.get(index as usize) {
                    Some(value) => Ok(value.clone()),
                    None => Err(Self::malformed(ctx)?),
                };
            }
            Record::BooleanObject(b) => clone::new_primitive_wrapper(&Primitive::Boolean(b), ctx)?,
            Record::NumberObject(n) => clone::new_primitive_wrapper(&Primitive::Number(n), ctx)?,
            Record::BigIntObject(digits) => {
                clone::new_primitive_wrapper(&Primitive::BigInt(digits), ctx)?
            }
            Record::StringObject(s) => {
                clone::new_primitive_wrapper(&Primitive::String(string(&s)), ctx)?
            }
            Record::Date(time) => clone::new_date(time, ctx)?,
            Record::RegExp { source, flags } => clone::new_regexp(string(&source), &flags, ctx)?,
            Record::ArrayBuffer(bytes) => clone::new_array_buffer_from(bytes, ctx)?,
            Record::View {
                kind,
                buffer,
                byte_offset,
                length,
            } => {
                // Let deserializedArrayBuffer be ? StructuredDeserialize(
                //   serialized.[[ArrayBufferSerialized]], targetRealm, memory).
                let buffer = self.deserialize(*buffer, ctx)?;
                let Some(buffer) = buffer.as_object().and_then(|b| clone::as_array_buffer(&b))
                else {
                    return Err(Self::malformed(ctx)?);
                };
                crate::engine::construct_view(kind, &buffer, byte_offset, length, ctx)?
            }
            Record::Map(entries) => {
                let map = clone::new_map(ctx);
                self.remember(&map);
                for (key, value) in entries {
                    let key = self.deserialize(key, ctx)?;
                    let value = self.deserialize(value, ctx)?;
                    clone::map_append(&map, key, value, ctx)?;
                }
                return Ok(map.into());
            }
            Record::Set(entries) => {
                let set = clone::new_set(ctx);
                self.remember(&set);
                for value in entries {
                    let value = self.deserialize(value, ctx)?;
                    clone::set_append(&set, value, ctx)?;
                }
                return Ok(set.into());
            }
            Record::Error { name, message } => {
                clone::new_error(name, message.map(|m| string(&m)), ctx)?
            }
            // DOMException's deserialization steps: set value's name to serialized.[[Name]] and
            // its message to serialized.[[Message]] (code units as they were).
            Record::DomException {
                name,
                message,
                quota: None,
            } => crate::dom::new_dom_exception(ctx, string(&message), string(&name))?,
            // A QuotaExceededError's: DOMException's steps, then its quota and requested set
            // to serialized.[[Quota]] and [[Requested]].
            Record::DomException {
                message,
                quota: Some(quota),
                ..
            } => crate::dom::new_quota_exceeded_error(string(&message), quota, ctx)?,
            Record::Array { length, properties } => {
                let array = clone::new_array(length, ctx)?;
                self.remember(&array);
                self.deserialize_properties(&array, properties, ctx)?;
                return Ok(array.into());
            }
            Record::Object(properties) => {
                let object = clone::new_plain_object(ctx);
                self.remember(&object);
                self.deserialize_properties(&object, properties, ctx)?;
                return Ok(object.into());
            }
            // Otherwise, if serialized.[[Type]] names a serializable interface: a new instance
            // in targetRealm, then its deserialization steps.
            Record::Platform(PlatformRecord { interface, data }) => {
                (interface.deserialization_steps)(data, ctx)?
            }
        };
        // Set memory[serialized] to value.
        self.remember(&object);
        Ok(object.into())
    }

    fn deserialize_properties(
        &mut self,
        object: &Object,
        properties: Vec<(Vec<u16>, Record)>,
        ctx: &mut Cx,
    ) -> JsResult<()> {
        // For each Record { [[Key]], [[Value]] } entry of serialized.[[Properties]]:
        for (key, value) in properties {
            // Let deserializedValue be ? StructuredDeserialize(entry.[[Value]], targetRealm,
            // memory).
            let value = self.deserialize(value, ctx)?;
            // Let result be ! CreateDataProperty(value, entry.[[Key]], deserializedValue).
            object.create_data_property_or_throw(clone::property_key(string(&key)), value, ctx)?;
        }
        Ok(())
    }
}

/// <https://streams.spec.whatwg.org/#abstract-opdef-structuredclone>
pub(crate) fn structured_clone(v: &Value, ctx: &mut Cx) -> JsResult<Value> {
    // 1. Let serialized be ? StructuredSerialize(v).
    let serialized = Serializer::default().serialize(v, ctx)?;
    // 2. Return ? StructuredDeserialize(serialized, the current Realm).
    structured_deserialize_after(serialized, 0, ctx)
}

/// StructuredDeserialize of a record that is part of a larger one, whose first `offset` object
/// records (the enclosing objects) are not deserialized: a reference to them is malformed.
pub(crate) fn structured_deserialize_after(
    record: Record,
    offset: u32,
    ctx: &mut Cx,
) -> JsResult<Value> {
    Deserializer {
        objects: Vec::new(),
        offset,
        transferred: Vec::new(),
    }
    .deserialize(record, ctx)
}

/// The serialization of the message PackAndPostMessage makes: an object with a null prototype
/// and the data properties `type` (a string) and `value`. The object is record 0 (nothing else
/// can refer to it), `value`'s records follow.
pub(crate) fn serialize_cross_realm_message(
    kind: &str,
    value: &Value,
    ctx: &mut Cx,
) -> JsResult<Record> {
    let mut serializer = Serializer {
        next_index: 1,
        ..Serializer::default()
    };
    let value = serializer.serialize(value, ctx)?;
    Ok(cross_realm_message_record(kind, value))
}

/// The record of PackAndPostMessage's message, given the record of its `value`.
fn cross_realm_message_record(kind: &str, value: Record) -> Record {
    Record::Object(vec![
        (
            "type".encode_utf16().collect(),
            Record::String(kind.encode_utf16().collect()),
        ),
        ("value".encode_utf16().collect(), value),
    ])
}

/// [`serialize_cross_realm_message`] for a `value` that is a `Uint8Array` over the whole of an
/// `ArrayBuffer` holding `bytes`, with no JS object made: the record its serialization would be
/// (13.3's buffer record holding 12.2's copy of the bytes, inside 13.4-5's view record). Its
/// serialization runs no script and cannot throw.
pub(crate) fn serialize_cross_realm_bytes_message(kind: &str, bytes: &[u8]) -> Record {
    let value = Record::View {
        kind: ViewKind::Typed(TypedArrayKind::Uint8),
        buffer: Box::new(Record::ArrayBuffer(ByteBlock::copy_of(bytes))),
        byte_offset: 0,
        length: bytes.len() as u64,
    };
    cross_realm_message_record(kind, value)
}

/// The bytes of `record` if it is the serialization of a `Uint8Array` over the whole of an
/// `ArrayBuffer` (what [`serialize_cross_realm_bytes_message`] makes, or a script's such chunk):
/// its deserialization would make just those two objects, holding just those bytes, and run no
/// script. Any other record comes back as it was.
pub(crate) fn whole_uint8_array_bytes(record: Record) -> Result<Vec<u8>, Record> {
    match record {
        Record::View {
            kind: ViewKind::Typed(TypedArrayKind::Uint8),
            buffer,
            byte_offset: 0,
            length,
        } => match *buffer {
            Record::ArrayBuffer(block) if block.as_slice().len() as u64 == length => {
                Ok(block.into_vec())
            }
            buffer => Err(Record::View {
                kind: ViewKind::Typed(TypedArrayKind::Uint8),
                buffer: Box::new(buffer),
                byte_offset: 0,
                length,
            }),
        },
        record => Err(record),
    }
}

/// <https://html.spec.whatwg.org/multipage/structured-data.html#structureddeserializewithtransfer>
/// into the current realm.
pub(crate) fn structured_deserialize_with_transfer(
    serialized: SerializedWithTransfer,
    ctx: &mut Cx,
) -> JsResult<Deserialized> {
    let SerializedWithTransfer {
        serialized,
        holders,
    } = serialized;
    // 1. Let memory be an empty map.
    // 2. Let transferredValues be a new empty List.
    let mut deserializer = Deserializer {
        objects: Vec::new(),
        offset: 0,
        transferred: Vec::with_capacity(holders.len()),
    };
    // 3. For each transferDataHolder of serializeWithTransferResult.[[TransferDataHolders]]:
    for holder in holders {
        let value: Value = match holder {
            // 3.2. If transferDataHolder.[[Type]] is "ArrayBuffer", then set value to a new
            //      ArrayBuffer object in targetRealm whose [[ArrayBufferData]] is
            //      transferDataHolder.[[ArrayBufferData]].
            TransferHolder::ArrayBuffer(bytes) => clone::new_array_buffer_from(bytes, ctx)?.into(),
            // 3.3. Otherwise: if the interface is not exposed in targetRealm, throw a
            //      "DataCloneError"; let value be a new instance of the interface in
            //      targetRealm; perform its transfer-receiving steps given transferDataHolder
            //      and value.
            TransferHolder::MessagePort(core) => {
                message_port::message_port_transfer_receiving_steps(core, ctx)?.into()
            }
            TransferHolder::Interface(interface, records) => {
                let Some(value) = (interface.new_instance)(ctx) else {
                    let message = format!("{} is not exposed in this realm", interface.name);
                    return Err(data_clone_error(ctx, &message)?);
                };
                (interface.transfer_receiving_steps)(records, &value, ctx)?;
                value.into()
            }
        };
        // 3.4. Set memory[transferDataHolder] to value.
        // 3.5. Append value to transferredValues.
        deserializer.transferred.push(value);
    }
    // 4. Let deserialized be ? StructuredDeserialize(serializeWithTransferResult.[[Serialized]],
    //    targetRealm, memory).
    let value = deserializer.deserialize(serialized, ctx)?;
    // 5. Return { [[Deserialized]]: deserialized, [[TransferredValues]]: transferredValues }.
    Ok(Deserialized {
        value,
        transferred: deserializer.transferred,
    })
}
