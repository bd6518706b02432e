//! What the column clause of a [`wsme_body!`](crate::types) attribute
//! (`name: Type = f(kind) => column or default null value`) generates code with: the value a
//! create writes to the column and the change a PUT makes, from the attribute as sent.
//!
//! The rule, for a create and a PUT alike: the sent value; for a `null`, the declared `null`
//! value when there is one, else the declared default, else NULL; for an attribute left out, on
//! a create the declared default (else NULL), on a PUT no change. The defaults are Octavia's:
//! the WSME `default=` of `octavia/api/v2/types/*.py`, which its `to_dict(render_unsets=True)`
//! hands to the create, and the values its PUT handlers give a `null`.

use octavia_db::SqlValue;

use super::typed::Patch;

/// A body attribute as sent: left out, `null` or a value. A plain (mandatory) attribute is
/// always a value; an `Option` cannot tell a `null` from a left-out one (both left out).
pub trait Sent {
    /// The attribute's value type (a declared default is written in it).
    type Value: Clone;
    /// The attribute as sent.
    fn sent_as(&self) -> Patch<&Self::Value>;
}

impl<T: Clone> Sent for Patch<T> {
    type Value = T;
    fn sent_as(&self) -> Patch<&T> {
        match self {
            Self::Absent => Patch::Absent,
            Self::Null => Patch::Null,
            Self::Value(v) => Patch::Value(v),
        }
    }
}

impl<T: Clone> Sent for Option<T> {
    type Value = T;
    fn sent_as(&self) -> Patch<&T> {
        self.as_ref().map_or(Patch::Absent, Patch::Value)
    }
}

/// Plain attributes: always sent with a value.
macro_rules! sent_plain {
    ($($t:ty),*) => {$(
        impl Sent for $t {
            type Value = $t;
            fn sent_as(&self) -> Patch<&$t> {
                Patch::Value(self)
            }
        }
    )*};
}
sent_plain!(String, i64, bool);

/// A row field written from an attribute's value (`None`: no value). A nullable column takes
/// the value converted (`None` also when it does not fit, which the schema's bounds rule
/// out); a column without NULL takes its type's zero for no value (the declarations give every
/// such column a default or a mandatory attribute).
pub trait FromAttr<V> {
    /// The field's value.
    fn from_attr(v: Option<V>) -> Self;
}

impl<V, C: TryFrom<V>> FromAttr<V> for Option<C> {
    fn from_attr(v: Option<V>) -> Self {
        v.and_then(|v| C::try_from(v).ok())
    }
}

/// Columns without NULL.
macro_rules! from_attr_plain {
    ($($v:ty => $c:ty),*) => {$(
        impl FromAttr<$v> for $c {
            fn from_attr(v: Option<$v>) -> Self {
                v.and_then(|v| <$c>::try_from(v).ok()).unwrap_or_default()
            }
        }
    )*};
}
from_attr_plain!(String => String, i64 => i32, i64 => i64, bool => bool);

/// The value of an attribute as the module's rule reads it: `None` when left out on a PUT
/// (`creating` false), else `Some` of the value or of what stands for its absence.
fn resolve<A: Sent>(
    a: &A,
    default: Option<A::Value>,
    null: Option<A::Value>,
    creating: bool,
) -> Option<Option<A::Value>> {
    match a.sent_as() {
        Patch::Value(v) => Some(Some(v.clone())),
        Patch::Null => Some(null.or(default)),
        Patch::Absent if creating => Some(default),
        Patch::Absent => None,
    }
}

/// The field a create writes of attribute `a` with its declared `default` and `null` value.
pub fn on_create<A: Sent, C: FromAttr<A::Value>>(
    a: &A,
    default: Option<A::Value>,
    null: Option<A::Value>,
) -> C {
    C::from_attr(resolve(a, default, null, true).flatten())
}

/// The column change a PUT makes of attribute `a` (`None`: left out, no change).
pub fn on_put<A: Sent>(a: &A, default: Option<A::Value>, null: Option<A::Value>) -> Option<SqlValue>
where
    SqlValue: From<Option<A::Value>>,
{
    resolve(a, default, null, false).map(SqlValue::from)
}

/// An attribute of a PUT as its model sees it: a `null` with a declared value (or default)
/// becomes that value, the rest unchanged.
pub fn on_put_model<T: Clone>(a: &Patch<T>, default: Option<T>, null: Option<T>) -> Patch<T> {
    match (a, null.or(default)) {
        (Patch::Null, Some(v)) => Patch::Value(v),
        _ => a.clone(),
    }
}

/// `Some` of a declared default or `null` value (converted to the attribute's type), `None`
/// when none is declared.
macro_rules! declared {
    () => {
        None
    };
    ($v:literal) => {
        Some(::core::convert::Into::into($v))
    };
}
pub(crate) use declared;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_and_put_read_the_declaration() {
        let absent: Patch<bool> = Patch::Absent;
        let null: Patch<bool> = Patch::Null;
        assert!(on_create::<_, bool>(&absent, Some(true), Some(false)));
        assert!(!on_create::<_, bool>(&null, Some(true), Some(false)));
        assert_eq!(
            on_create::<_, Option<i32>>(&None::<i64>, Some(1), None),
            Some(1)
        );
        assert_eq!(
            on_create::<_, Option<i32>>(&Some(7_i64), Some(1), None),
            Some(7)
        );
        assert_eq!(on_create::<_, Option<i32>>(&None::<i64>, None, None), None);
        assert_eq!(on_put(&absent, Some(false), None), None);
        assert_eq!(
            on_put(&null, Some(false), None),
            Some(SqlValue::Bool(false))
        );
        assert_eq!(
            on_put(&Patch::<String>::Null, None, None),
            Some(SqlValue::Null)
        );
        assert_eq!(on_put_model(&null, Some(false), None), Patch::Value(false));
    }
}
