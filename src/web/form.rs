//! A posted form's fields, as the browser sent them (URL-encoded, or multipart with its
//! files): repeated names kept (`item_text` and `item_price` are given once per line),
//! nothing refused before the page can say what is wrong with it.

use crate::error::Error;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header;

pub struct Fields {
    values: Vec<(String, String)>,
    files: Vec<Upload>,
}

/// A file sent with a multipart form.
pub struct Upload {
    pub field: String,
    /// The name the browser gave it (its name on the user's machine).
    pub name: String,
    pub bytes: Bytes,
}

impl Fields {
    /// The first value of a field, if it was sent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// A field's value, or None when it was not sent or left empty.
    pub fn filled(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|value| !value.trim().is_empty())
    }

    /// Every value of a repeated field, empty ones too, in order (lines of several fields
    /// stay aligned).
    pub fn every(&self, name: &str) -> Vec<&str> {
        self.values.iter().filter(|(key, _)| key == name).map(|(_, value)| value.as_str()).collect()
    }

    /// A filled field parsed as `T`; its refusal is about that field.
    pub fn parsed<T>(&self, name: &'static str) -> Result<Option<T>, Error>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        self.filled(name)
            .map(|value| {
                value.trim().parse::<T>().map_err(|e| Error::Invalid { field: name, problem: e.to_string() })
            })
            .transpose()
    }

    /// A file sent in the field, if one was chosen (a file input left empty sends none).
    pub fn file(&self, field: &str) -> Option<&Upload> {
        self.files.iter().find(|upload| upload.field == field && !upload.bytes.is_empty())
    }

    /// The fields of a request's body; a body cut off is refused naming it.
    pub async fn read<S: Send + Sync>(request: Request, state: &S) -> Result<Fields, Error> {
        let cut_off =
            |e: &dyn std::fmt::Display| Error::InputFile(format!("the form could not be read: {e}"));
        let multipart = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("multipart/form-data"));
        if !multipart {
            let body = Bytes::from_request(request, state).await.map_err(|e| cut_off(&e))?;
            return Ok(Fields {
                values: form_urlencoded::parse(&body).into_owned().collect(),
                files: Vec::new(),
            });
        }
        let mut parts = Multipart::from_request(request, state).await.map_err(|e| cut_off(&e))?;
        let mut fields = Fields { values: Vec::new(), files: Vec::new() };
        while let Some(part) = parts.next_field().await.map_err(|e| cut_off(&e))? {
            let field = part.name().unwrap_or_default().to_string();
            let name = part.file_name().map(str::to_string);
            let bytes = part.bytes().await.map_err(|e| cut_off(&e))?;
            match name {
                Some(name) => fields.files.push(Upload { field, name, bytes }),
                None => fields.values.push((field, String::from_utf8_lossy(&bytes).into_owned())),
            }
        }
        Ok(fields)
    }
}
