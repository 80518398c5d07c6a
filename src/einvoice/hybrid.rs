//! The hybrid e-invoice: the document's PDF/A-3b with its CII XML embedded as
//! `factur-x.xml` (an `Alternative` of it, listed in the catalog's `/AF`), and the XMP that
//! declares it with the Factur-X extension schema.
//!
//! krilla writes the PDF/A-3 and the embedded file, but cannot yet add an extension schema
//! to its XMP. So the finished file gets one incremental update (ISO 32000 7.5.6, which
//! PDF/A-3 permits): a new revision of the metadata stream, krilla's XMP with the Factur-X
//! descriptions added, a cross-reference section for that one object and a trailer pointing
//! back. Everything krilla wrote, and checked, stays as it was, byte for byte; and as both
//! parts are pure functions of the document, rendering it again gives the same bytes.

use super::{check, cii, XML_NAME};
use crate::error::Error;
use crate::receipt::pdf::{self, Attachment};
use crate::receipt::Receipt;

/// The hybrid PDF of a document `super::check` accepts.
pub fn render(receipt: &Receipt) -> Result<Vec<u8>, Error> {
    check(receipt)?;
    let xml = cii::render(receipt);
    let attachment = Attachment {
        name: XML_NAME,
        mime_type: "text/xml",
        description: "Factur-X invoice (EN 16931)",
        data: xml,
    };
    let plain = pdf::render_with(receipt, Some(attachment))?;
    with_factur_x_xmp(plain)
        .map_err(|detail| Error::Internal { what: "the hybrid PDF could not be written", detail })
}

/// The Factur-X properties and the PDF/A extension schema that describes them
/// (Factur-X 1.07, section 6.2.2; PyPI's factur-x ships the same descriptions).
const FACTUR_X_XMP: &str = r#"<rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"><fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>factur-x.xml</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>EN 16931</fx:ConformanceLevel></rdf:Description><rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#"><pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource"><pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix><pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource"><pdfaProperty:name>DocumentFileName</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>name of the embedded XML invoice file</pdfaProperty:description></rdf:li><rdf:li rdf:parseType="Resource"><pdfaProperty:name>DocumentType</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>INVOICE</pdfaProperty:description></rdf:li><rdf:li rdf:parseType="Resource"><pdfaProperty:name>Version</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>The actual version of the Factur-X XML schema</pdfaProperty:description></rdf:li><rdf:li rdf:parseType="Resource"><pdfaProperty:name>ConformanceLevel</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>The conformance level of the embedded Factur-X data</pdfaProperty:description></rdf:li></rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>"#;

/// `pdf` with its metadata stream revised to carry the Factur-X XMP.
fn with_factur_x_xmp(mut pdf: Vec<u8>) -> Result<Vec<u8>, String> {
    let text = String::from_utf8_lossy(&pdf).into_owned();
    // krilla writes the XMP unfiltered, as one packet, in the object the catalog names.
    let start = text.find("<?xpacket begin=").ok_or("no XMP packet")?;
    let end = text[start..].find("<?xpacket end=").map(|e| start + e).ok_or("no end of the XMP packet")?;
    let end = text[end..].find("?>").map(|e| end + e + 2).ok_or("no end of the XMP packet")?;
    let packet = &text[start..end];
    let close = packet.rfind("</rdf:RDF>").ok_or("no rdf:RDF in the XMP")?;
    let xmp = format!("{}{FACTUR_X_XMP}{}", &packet[..close], &packet[close..]);
    let metadata = object_before(&text, start).ok_or("no object holds the XMP")?;
    let trailer_at = text.rfind("\ntrailer").ok_or("no trailer")?;
    let trailer = &text[trailer_at..];
    let (open, shut) = (trailer.find("<<").ok_or("no trailer")?, trailer.rfind(">>").ok_or("no trailer")?);
    let entries = trailer[open + 2..shut].trim_end();
    let previous = trailer
        .split("startxref")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .ok_or("no startxref")?;

    let object_at = pdf.len() + 1;
    let revision = format!(
        "\n{metadata} 0 obj\n<<\n  /Length {}\n  /Type /Metadata\n  /Subtype /XML\n>>\nstream\n{xmp}\nendstream\nendobj\n",
        xmp.len()
    );
    pdf.extend_from_slice(revision.as_bytes());
    let xref_at = pdf.len();
    let update = format!(
        "xref\n{metadata} 1\n{object_at:010} 00000 n \ntrailer\n<<{entries}\n  /Prev {previous}\n>>\nstartxref\n{xref_at}\n%%EOF\n"
    );
    pdf.extend_from_slice(update.as_bytes());
    Ok(pdf)
}

/// The number of the indirect object whose body holds `at`: the last `N 0 obj` before it.
fn object_before(text: &str, at: usize) -> Option<u32> {
    let header = text[..at].rfind(" 0 obj")?;
    let line_start = text[..header].rfind('\n').map_or(0, |n| n + 1);
    text[line_start..header].trim().parse().ok()
}
