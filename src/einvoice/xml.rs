//! A small element tree, written out by quick-xml: the e-invoices are built as values (an
//! element present or not is a plain `Option`), then serialised the same way every time.

use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

/// One element: its name, its attributes, and either text or child elements.
pub struct El {
    name: &'static str,
    attributes: Vec<(&'static str, String)>,
    body: Body,
}

enum Body {
    Text(String),
    Children(Vec<El>),
}

/// An element of `children` (those that are `None` left out).
pub fn el(name: &'static str, children: impl IntoIterator<Item = Option<El>>) -> El {
    El { name, attributes: Vec::new(), body: Body::Children(children.into_iter().flatten().collect()) }
}

/// An element holding `text`.
pub fn text(name: &'static str, text: impl Into<String>) -> El {
    El { name, attributes: Vec::new(), body: Body::Text(text.into()) }
}

/// An element holding `value` when there is one.
pub fn maybe(name: &'static str, value: Option<&str>) -> Option<El> {
    value.map(|value| text(name, value))
}

impl El {
    pub fn attr(mut self, name: &'static str, value: impl Into<String>) -> El {
        self.attributes.push((name, value.into()));
        self
    }

    /// The document: an XML declaration (UTF-8), the tree indented by two spaces, a final
    /// newline.
    pub fn document(&self) -> Vec<u8> {
        let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
        // Writing into a Vec cannot fail.
        writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None))).expect("in memory");
        self.write(&mut writer).expect("in memory");
        let mut bytes = writer.into_inner();
        bytes.push(b'\n');
        bytes
    }

    fn write(&self, writer: &mut Writer<Vec<u8>>) -> std::io::Result<()> {
        let element = writer
            .create_element(self.name)
            .with_attributes(self.attributes.iter().map(|(name, value)| (*name, value.as_str())));
        match &self.body {
            Body::Text(text) => element.write_text_content(BytesText::new(text)).map(drop),
            Body::Children(children) => element
                .write_inner_content(|writer| children.iter().try_for_each(|child| child.write(writer)))
                .map(drop),
        }
    }
}
