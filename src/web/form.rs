//! A posted form's fields, as the browser sent them: repeated names kept (`item_text` and
//! `item_price` are given once per line), nothing refused before the page can say what is
//! wrong with it.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};

pub struct Fields(Vec<(String, String)>);

impl Fields {
    /// The first value of a field, if it was sent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// A field's value, or None when it was not sent or left empty.
    pub fn filled(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|value| !value.trim().is_empty())
    }

    /// Every value of a repeated field, empty ones too, in order (lines of several fields
    /// stay aligned).
    pub fn every(&self, name: &str) -> Vec<&str> {
        self.0.iter().filter(|(key, _)| key == name).map(|(_, value)| value.as_str()).collect()
    }

    /// A filled field parsed as `T`; its error names the field as the CLI names the flag.
    pub fn parsed<T>(&self, name: &str) -> Result<Option<T>, String>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        self.filled(name)
            .map(|value| value.trim().parse::<T>().map_err(|e| format!("--{}: {e}", name.replace('_', "-"))))
            .transpose()
    }
}

impl<S: Send + Sync> FromRequest<S> for Fields {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Fields, Response> {
        let body = Bytes::from_request(request, state).await.map_err(IntoResponse::into_response)?;
        Ok(Fields(form_urlencoded::parse(&body).into_owned().collect()))
    }
}
