//! The request body as a handler receives it: [`Wsme`], read by axum, validated and typed by
//! the WSME gate where the handler asks for it.

use std::marker::PhantomData;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};

use super::parse::parse_typed;
use super::schema::Schema;
use crate::fault::ApiError;

/// A body declared by `wsme_body!` with `wsme = (arg, wrapper)`: what [`Wsme::parse`] reads
/// it with.
pub trait WsmeBody: serde::de::DeserializeOwned {
    /// The controller argument WSME's texts name (`listener_`).
    const ARG: &'static str;
    /// The key the object comes wrapped in (`listener`).
    const WRAPPER: &'static str;
    /// The attribute table it is validated with.
    const SCHEMA: &'static Schema;
}

/// A request body to be read as `T`. Extracted as axum's `Bytes` (whose rejection answers a
/// body that cannot be read, as before); [`Wsme::parse`] runs the WSME gate where the handler
/// calls it, after the checks the reference makes first (the query string, a parent's
/// lookup), so which error wins is unchanged.
pub struct Wsme<T>(Bytes, PhantomData<fn() -> T>);

impl<S: Send + Sync, T> FromRequest<S> for Wsme<T> {
    type Rejection = <Bytes as FromRequest<S>>::Rejection;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(Bytes::from_request(req, state).await?, PhantomData))
    }
}

impl<T: WsmeBody> Wsme<T> {
    /// The WSME gate's answer for a bad body, else the typed body ([`parse_typed`] with `T`'s
    /// declaration).
    pub fn parse(&self) -> Result<T, ApiError> {
        parse_typed(&self.0, T::ARG, T::WRAPPER, T::SCHEMA)
    }
}
