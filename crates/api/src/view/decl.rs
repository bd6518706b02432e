//! `view_decl!`: one declaration per response attribute.
//!
//! Each attribute of a `*Response` (octavia/api/v2/types) is written once, in Octavia's
//! declaration order: its JSON name (the field, `r#type` is `type`), its view type, the
//! expression that reads it from the row and its attachments, and how a collection GET lists it
//! in SQL (a [`crate::listing::Attr`]). From that one list come the view struct and its `new`,
//! its `Serialize` (the keys in sorted order, so the text equals the serialised map), the
//! attribute table (`*_ATTRS`: filters, sort keys, `fields=`) and the collection's
//! [`crate::listing::Spec`]. List-only keys (a child's parent id, filtered on but not shown)
//! follow in `list_only`.

/// The JSON name of a field identifier: `r#type` is `type`.
pub const fn json_name(ident: &'static str) -> &'static str {
    match ident.as_bytes() {
        [b'r', b'#', rest @ ..] => match core::str::from_utf8(rest) {
            Ok(s) => s,
            Err(_) => ident,
        },
        _ => ident,
    }
}

/// Whether `a` sorts before `b` byte-wise (the order of a sorted JSON map's keys).
const fn before(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// The positions of `names` in sorted key order: `sorted_order(&["b", "a"]) == [1, 0]`. `N` is
/// `names.len()` (a shorter `N` sorts the first `N`).
pub const fn sorted_order<const N: usize>(names: &[&str]) -> [usize; N] {
    let mut order = [0usize; N];
    let mut i = 0;
    while i < N {
        order[i] = i;
        i += 1;
    }
    // insertion sort: N is a resource's attribute count (at most ~40)
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && before(names[order[j]], names[order[j - 1]]) {
            let t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    order
}

/// Declares a response view from one line per attribute:
///
/// ```text
/// view_decl! {
///     /// doc of the view struct
///     pub struct MemberView<'a>;
///     /// doc of the constructor
///     pub fn new(m: &'a MemberRow, tags: &'a [String]);  // or `… ) { let v = …; };`
///     /// doc of the attribute table
///     pub const MEMBER_ATTRS;
///     /// doc of the collection's listing spec
///     pub static MEMBER = { joins: &[], tags: true };
///     fields {
///         id: &'a str = &m.id => Val("`t`.`id`", Text),
///         // `; skip_none`: left out of the object when `None`
///         healthmonitor_id: Option<&'a str> = att.hm.as_deref() => Val("…", Text); skip_none,
///         …
///     }
///     list_only { loadbalancer_id => Val("`t`.`load_balancer_id`", Text) }
/// }
/// ```
///
/// The `Attr` / `Kind` variants (`Val`, `Str`, `Has`, `Csv`, `Never`; `Text`, `Int`, …) are in
/// scope in the listing expressions.
macro_rules! view_decl {
    (
        $(#[$sdoc:meta])*
        pub struct $view:ident<$lt:lifetime>;
        $(#[$ndoc:meta])*
        pub fn new($($arg:ident : $argty:ty),* $(,)?) $({ $($pre:tt)* })?;
        $(#[$adoc:meta])*
        pub const $attrs:ident;
        $(#[$pdoc:meta])*
        pub static $spec:ident = { joins: $joins:expr, tags: $tags:expr $(,)? };
        fields {
            $($f:ident : $ty:ty = $e:expr => $la:expr $(; $skip:ident)?),* $(,)?
        }
        $(list_only { $($lo:ident => $loa:expr),* $(,)? })?
    ) => {
        $(#[$sdoc])*
        pub struct $view<$lt> {
            $($f: $ty,)*
        }

        impl<$lt> $view<$lt> {
            $(#[$ndoc])*
            pub fn new($($arg: $argty),*) -> Self {
                $($($pre)*)?
                Self { $($f: $e,)* }
            }
        }

        impl ::serde::Serialize for $view<'_> {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                #[allow(non_camel_case_types)]
                #[derive(Clone, Copy)]
                enum F {
                    $($f,)*
                }
                const FIELDS: &[F] = &[$(F::$f,)*];
                const NAMES: &[&str] = &[$($crate::view::json_name(stringify!($f)),)*];
                const N: usize = FIELDS.len();
                const ORDER: [usize; N] = $crate::view::sorted_order::<N>(NAMES);
                let mut st = s.serialize_struct(stringify!($view), N)?;
                for i in ORDER {
                    match FIELDS[i] {
                        $(F::$f => {
                            if !$crate::view::view_decl!(@skip ($($skip)?) &self.$f) {
                                st.serialize_field(NAMES[i], &self.$f)?;
                            }
                        })*
                    }
                }
                st.end()
            }
        }

        $(#[$adoc])*
        pub const $attrs: &[&str] = &[
            $($crate::view::json_name(stringify!($f)),)*
            $($(stringify!($lo),)*)?
        ];

        $(#[$pdoc])*
        pub static $spec: $crate::listing::Spec = $crate::listing::Spec {
            attrs: {
                #[allow(unused_imports)]
                use $crate::listing::{Attr::*, Kind::*};
                &[
                    $(($crate::view::json_name(stringify!($f)), $la),)*
                    $($((stringify!($lo), $loa),)*)?
                ]
            },
            joins: $joins,
            tags: $tags,
        };
    };
    (@skip () $v:expr) => {
        false
    };
    (@skip (skip_none) $v:expr) => {
        Option::is_none($v)
    };
}

pub(crate) use view_decl;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_identifiers_lose_their_prefix_and_order_is_byte_wise() {
        assert_eq!(json_name("r#type"), "type");
        assert_eq!(json_name("id"), "id");
        let names = ["tenant_id", "id", "type", "admin_state_up", "tags"];
        assert_eq!(sorted_order::<5>(&names), [3, 1, 4, 0, 2]);
    }
}
