//! The request body as WSME echoes it in `Invalid input` texts: Python's `repr` of the dict
//! the client sent, keys in the client's order.

use serde_json::Value;

use super::python::py_repr;

/// A JSON value whose objects keep the client's key order (serde_json's map sorts them).
enum Ordered {
    Scalar(Value),
    List(Vec<Ordered>),
    Dict(Vec<(String, Ordered)>),
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Bool(b)))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(n)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::String(s.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Ordered::List(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Ordered, A::Error> {
                let mut v: Vec<(String, Ordered)> = Vec::new();
                while let Some((k, x)) = a.next_entry::<String, Ordered>()? {
                    // a repeated key keeps its first place and its last value, as a Python dict
                    match v.iter_mut().find(|(have, _)| *have == k) {
                        Some(slot) => slot.1 = x,
                        None => v.push((k, x)),
                    }
                }
                Ok(Ordered::Dict(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn ordered_repr(v: &Ordered) -> String {
    match v {
        Ordered::Scalar(x) => py_repr(x),
        Ordered::List(a) => format!(
            "[{}]",
            a.iter().map(ordered_repr).collect::<Vec<_>>().join(", ")
        ),
        Ordered::Dict(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, x)| format!(
                    "{}: {}",
                    py_repr(&Value::String(k.clone())),
                    ordered_repr(x)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The request body as WSME echoes it in `Invalid input` texts: Python's `repr` of the parsed
/// dict, keys in the client's order (`root` when the body cannot be read again).
pub(super) fn echo(body: &[u8], root: &Value) -> String {
    serde_json::from_slice::<Ordered>(body)
        .map(|o| ordered_repr(&o))
        .unwrap_or_else(|_| py_repr(root))
}
