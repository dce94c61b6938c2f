//! `#[derive(Trace)]` for the QuickJS backend of boa_streams' engine API: the impl calls
//! `Trace::trace` on every field not marked `#[unsafe_ignore_trace]`, so the collector's mark
//! phase sees every JavaScript value an object's native data holds. `#[boa_gc(..)]` is accepted
//! and ignored (it means something on the Boa backend only).

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Fields};

/// Derives `crate::engine::Trace`.
#[proc_macro_derive(Trace, attributes(unsafe_ignore_trace, boa_gc))]
pub fn derive_trace(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let ignored = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| a.path().is_ident("unsafe_ignore_trace"))
    };
    // One match arm per variant (a struct is one arm), binding the traced fields by reference.
    let arm = |path: proc_macro2::TokenStream, fields: &Fields| match fields {
        Fields::Named(named) => {
            let names: Vec<_> = named
                .named
                .iter()
                .filter(|f| !ignored(&f.attrs))
                .filter_map(|f| f.ident.clone())
                .collect();
            quote! { #path { #(#names,)* .. } => { #(crate::engine::Trace::trace(#names, marker);)* } }
        }
        Fields::Unnamed(unnamed) => {
            let binds: Vec<_> = unnamed
                .unnamed
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    if ignored(&f.attrs) {
                        quote! { _ }
                    } else {
                        let id = format_ident!("f{}", i);
                        quote! { #id }
                    }
                })
                .collect();
            let traced: Vec<_> = unnamed
                .unnamed
                .iter()
                .enumerate()
                .filter(|(_, f)| !ignored(&f.attrs))
                .map(|(i, _)| format_ident!("f{}", i))
                .collect();
            quote! { #path ( #(#binds),* ) => { #(crate::engine::Trace::trace(#traced, marker);)* } }
        }
        Fields::Unit => quote! { #path => {} },
    };
    let arms: Vec<_> = match &input.data {
        Data::Struct(s) => vec![arm(quote! { Self }, &s.fields)],
        Data::Enum(e) => e
            .variants
            .iter()
            .map(|v| {
                let vi = &v.ident;
                arm(quote! { Self::#vi }, &v.fields)
            })
            .collect(),
        Data::Union(_) => {
            return syn::Error::new_spanned(name, "a union cannot be traced")
                .to_compile_error()
                .into()
        }
    };
    let body = if arms.is_empty() {
        quote! { let _ = marker; match *self {} }
    } else {
        quote! { match self { #(#arms)* } }
    };
    quote! {
        impl #impl_generics crate::engine::Trace for #name #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn trace(&self, marker: &mut crate::engine::Marker) { #body }
        }
    }
    .into()
}
