//! The `FormData` interface (<https://xhr.spec.whatwg.org/#interface-formdata>): an entry list
//! of names and values (strings or `File`s), what `formData()` returns and a body can be made
//! from. Forms are not supported (this host has no DOM): a `form` argument is a `TypeError`.

use std::sync::Arc;

use crate::engine::{self, webidl, Cx, JsResult, JsString, Object, Slot, Value};

use super::multipart::{self, Entry, EntryValue};

traced! {
    /// <https://xhr.spec.whatwg.org/#concept-formdata-entry>
    #[derive(Debug, Clone)]
    pub(crate) struct FormEntry {
        #[unsafe_ignore_trace]
        name: JsString,
        value: FormEntryValue,
    }
}

traced! {
    /// An entry's value: a scalar value string or a `File` object (a `Blob` given to
    /// [`create_an_entry`], before it makes the `File`).
    #[derive(Debug, Clone)]
    pub(crate) enum FormEntryValue {
        String(#[unsafe_ignore_trace] JsString),
        File(Object),
    }
}

traced! {
    data;
    /// <https://xhr.spec.whatwg.org/#interface-formdata>
    #[derive(Debug)]
    pub(crate) struct FormData {
        /// <https://xhr.spec.whatwg.org/#concept-formdata-entry-list>
        entry_list: Slot<Vec<FormEntry>>,
    }
}

impl webidl::ClassInterface for FormData {
    const LENGTH: usize = 0;

    fn members(b: &mut webidl::InterfaceBuilder<'_, '_>) {
        b.operation("append", 2, append)
            .operation("delete", 1, delete)
            .operation("get", 1, get)
            .operation("getAll", 1, get_all)
            .operation("has", 1, has)
            .operation("set", 2, set)
            .pair_iterable::<Self>();
    }

    /// <https://xhr.spec.whatwg.org/#dom-formdata>
    fn construct(_: &Value, args: &[Value], _: &mut Cx) -> JsResult<Self> {
        // `optional HTMLFormElement form`: this host has no HTMLFormElement, so any value but
        // undefined fails the conversion.
        if args.first().is_some_and(|form| !form.is_undefined()) {
            return Err(engine::throw_type_error(
                "FormData: the form argument is not an HTMLFormElement",
            ));
        }
        Ok(Self {
            entry_list: Slot::new(Vec::new()),
        })
    }
}

webidl::interface!(FormData, "FormData");

impl webidl::PairIterable for FormData {
    /// The value pairs to iterate over are this's entry list's entries, name as key and
    /// value as value.
    fn value_pair(this: &Object<Self>, index: usize) -> Option<(Value, Value)> {
        let this = this.borrow();
        let list = this.data().entry_list.borrow();
        let entry = list.get(index)?;
        Some((entry.name.clone().into(), entry_value(&entry.value)))
    }
}

fn entry_value(value: &FormEntryValue) -> Value {
    match value {
        FormEntryValue::String(s) => s.clone().into(),
        FormEntryValue::File(file) => file.clone().into(),
    }
}

/// A new `FormData` of the current realm holding `entries` (what `formData()` returns).
pub(crate) fn new_form_data(entries: Vec<Entry>, ctx: &mut Cx) -> JsResult<Object<FormData>> {
    let mut list = Vec::with_capacity(entries.len());
    for entry in entries {
        let value = match entry.value {
            EntryValue::String(s) => FormEntryValue::String(JsString::from(s.as_str())),
            EntryValue::File(file) => {
                let name: Vec<u16> = file.name.encode_utf16().collect();
                FormEntryValue::File(crate::file::new_file(
                    Arc::from(file.body),
                    file.type_,
                    name,
                    None,
                    ctx,
                )?)
            }
        };
        list.push(FormEntry {
            name: JsString::from(entry.name.as_str()),
            value,
        });
    }
    webidl::new_object(
        FormData {
            entry_list: Slot::new(list),
        },
        ctx,
    )
}

/// The entries of a `FormData` as the multipart/form-data encoding reads them.
pub(crate) fn multipart_entries(form_data: &Object<FormData>) -> Vec<Entry> {
    let list = form_data.borrow().data().entry_list.borrow().clone();
    list.iter()
        .map(|entry| {
            let name = entry.name.to_std_string_lossy();
            match &entry.value {
                FormEntryValue::String(s) => Entry::string(&name, &s.to_std_string_lossy()),
                FormEntryValue::File(file) => {
                    let (bytes, type_) = crate::file::blob_data(file).unwrap_or_default();
                    let filename = crate::file::file_data(file)
                        .map(|(n, _)| String::from_utf16_lossy(&n))
                        .unwrap_or_default();
                    Entry {
                        name,
                        value: EntryValue::File(multipart::File {
                            name: filename,
                            type_,
                            body: bytes.to_vec(),
                        }),
                    }
                }
            }
        })
        .collect()
}

/// `value` as a `FormData`, if it is one.
pub(crate) fn as_form_data(value: &Value) -> Option<Object<FormData>> {
    value
        .as_object()
        .and_then(|o| o.downcast::<FormData>().ok())
}

/// <https://xhr.spec.whatwg.org/#create-an-entry>, with `name` and `value` converted: a
/// `Blob` that is not a `File` becomes a `File` named "blob"; a `filename` gives a new `File`
/// of that name.
fn create_an_entry(
    name: JsString,
    value: FormEntryValue,
    filename: Option<JsString>,
    ctx: &mut Cx,
) -> JsResult<FormEntry> {
    // 1. Set name to the result of converting name into a scalar value string. (Done: the
    //    argument is a USVString.)
    let value = match &value {
        // 2. If value is a string, then set value to the result of converting value into a
        //    scalar value string.
        FormEntryValue::String(_) => value,
        // 3. Otherwise:
        FormEntryValue::File(blob) => {
            let blob = blob.clone();
            let (bytes, type_) = crate::file::blob_data(&blob)
                .ok_or_else(|| engine::throw_type_error("FormData: the value is not a Blob"))?;
            let file = crate::file::file_data(&blob);
            // 3.1. If value is not a File object, then set value to a new File object,
            //      representing the same bytes, whose name attribute value is "blob".
            // 3.2. If filename is given, then set value to a new File object, representing
            //      the same bytes, whose name attribute is filename.
            match (file, filename) {
                (Some(_), None) => FormEntryValue::File(blob),
                (file, filename) => {
                    let name: Vec<u16> = match filename {
                        Some(filename) => filename.to_vec(),
                        None => "blob".encode_utf16().collect(),
                    };
                    let last_modified = file.map(|(_, modified)| modified);
                    FormEntryValue::File(crate::file::new_file(
                        bytes,
                        type_,
                        name,
                        last_modified,
                        ctx,
                    )?)
                }
            }
        }
    };
    // 4. Return an entry whose name is name and whose value is value.
    Ok(FormEntry { name, value })
}

/// The arguments of `append` and `set`: the overloads `(USVString name, USVString value)` and
/// `(USVString name, Blob blobValue, optional USVString filename)`, resolved by the second
/// argument (a `Blob` picks the second).
fn entry_arguments(args: &[Value], member: &str, ctx: &mut Cx) -> JsResult<FormEntry> {
    webidl::require_args(args, 2, "FormData", member)?;
    let value = webidl::arg(args, 1);
    let is_blob = value
        .as_object()
        .is_some_and(|o| crate::file::blob_data(&o).is_some());
    if args.len() >= 3 && !is_blob {
        return Err(engine::throw_type_error(format!(
            "Failed to execute '{member}' on 'FormData': parameter 2 is not of type 'Blob'"
        )));
    }
    let name = webidl::to_usv_string(&args[0], ctx)?;
    if is_blob {
        let filename = match args.get(2) {
            Some(filename) if !filename.is_undefined() => {
                Some(webidl::to_usv_string(filename, ctx)?)
            }
            _ => None,
        };
        let blob = value
            .as_object()
            .ok_or_else(|| engine::throw_type_error("not a Blob"))?;
        create_an_entry(name, FormEntryValue::File(blob), filename, ctx)
    } else {
        let value = webidl::to_usv_string(&value, ctx)?;
        create_an_entry(name, FormEntryValue::String(value), None, ctx)
    }
}

fn this_form_data(this: &Value) -> JsResult<Object<FormData>> {
    webidl::this::<FormData>(this)
}

fn name_argument(args: &[Value], member: &str, ctx: &mut Cx) -> JsResult<JsString> {
    webidl::require_args(args, 1, "FormData", member)?;
    webidl::to_usv_string(&args[0], ctx)
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-append>
fn append(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    // 1. Let value be value if given; otherwise blobValue.
    // 2. Let entry be the result of creating an entry with name, value, and filename if given.
    let entry = entry_arguments(args, "append", ctx)?;
    // 3. Append entry to this's entry list.
    this.borrow().data().entry_list.borrow_mut().push(entry);
    Ok(Value::undefined())
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-delete>
fn delete(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    let name = name_argument(args, "delete", ctx)?;
    // The delete(name) method steps are to remove all entries whose name is name from this's
    // entry list.
    this.borrow()
        .data()
        .entry_list
        .borrow_mut()
        .retain(|entry| entry.name != name);
    Ok(Value::undefined())
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-get>
fn get(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    let name = name_argument(args, "get", ctx)?;
    // 1. If there is no entry whose name is name in this's entry list, then return null.
    // 2. Return the value of the first entry whose name is name from this's entry list.
    let list = this.borrow().data().entry_list.borrow().clone();
    Ok(list
        .iter()
        .find(|entry| entry.name == name)
        .map_or_else(Value::null, |entry| entry_value(&entry.value)))
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-getall>
fn get_all(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    let name = name_argument(args, "getAll", ctx)?;
    // 1. If there is no entry whose name is name in this's entry list, then return the empty
    //    list. 2. Return the values of all entries whose name is name, in order.
    let list = this.borrow().data().entry_list.borrow().clone();
    let values: Vec<Value> = list
        .iter()
        .filter(|entry| entry.name == name)
        .map(|entry| entry_value(&entry.value))
        .collect();
    Ok(engine::create_array_from_list(values, ctx).into())
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-has>
fn has(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    let name = name_argument(args, "has", ctx)?;
    // Return true if there is an entry whose name is name in this's entry list; otherwise
    // false.
    let has = this
        .borrow()
        .data()
        .entry_list
        .borrow()
        .iter()
        .any(|entry| entry.name == name);
    Ok(has.into())
}

/// <https://xhr.spec.whatwg.org/#dom-formdata-set>
fn set(this: &Value, args: &[Value], ctx: &mut Cx) -> JsResult<Value> {
    let this = this_form_data(this)?;
    // 1.–2. Let entry be the result of creating an entry with name, value, and filename.
    let entry = entry_arguments(args, "set", ctx)?;
    // 3. If there are entries in this's entry list whose name is name, then replace the first
    //    such entry with entry and remove the others.
    // 4. Otherwise, append entry to this's entry list.
    let data = this.borrow();
    let mut list = data.data().entry_list.borrow_mut();
    match list.iter().position(|e| e.name == entry.name) {
        Some(first) => {
            let name = entry.name.clone();
            list[first] = entry;
            let mut index = 0;
            list.retain(|e| {
                let keep = index <= first || e.name != name;
                index += 1;
                keep
            });
        }
        None => list.push(entry),
    }
    Ok(Value::undefined())
}
