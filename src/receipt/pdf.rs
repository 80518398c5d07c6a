//! The receipt as an A4 PDF/A-2b document on the canvas (`canvas`): text selectable, and no
//! clock inside, so the same receipt gives the same bytes. The payment part is drawn by
//! `slip`.

use super::canvas::{archival_document, archival_document_as, faces, Pages, BLACK, RED, WIDTH};
use super::slip;
use super::{Line, Receipt};
use crate::error::Error;
use crate::payment::Slip;
use krilla::configure::Archival;
use krilla::embed::{AssociationKind, EmbeddedFile, MimeType};
use krilla::metadata::{DateTime, Metadata};

pub use super::canvas::check_printable;

/// Renders the receipt. A text in a script the font cannot show is refused, naming its
/// field, rather than printed as empty boxes.
pub fn render(receipt: &Receipt) -> Result<Vec<u8>, Error> {
    render_with(receipt, None)
}

/// A file embedded in a document, as an alternative form of it (a hybrid e-invoice's XML).
pub struct Attachment<'a> {
    pub name: &'a str,
    pub mime_type: &'a str,
    pub description: &'a str,
    pub data: Vec<u8>,
}

/// Renders the receipt, as PDF/A-3b with `attachment` embedded when there is one, else as
/// PDF/A-2b.
pub fn render_with(receipt: &Receipt, attachment: Option<Attachment>) -> Result<Vec<u8>, Error> {
    refuse_unprintable(receipt)?;
    let (regular, bold) = faces();
    let mut document = match attachment {
        Some(_) => archival_document_as(Archival::A3_B)?,
        None => archival_document()?,
    };
    let issued = receipt.issued_on;
    use chrono::Datelike;
    let day = DateTime::new(issued.year() as u16).month(issued.month() as u8).day(issued.day() as u8);
    document.set_metadata(
        Metadata::new()
            .title(receipt.shown_number())
            .language(receipt.language.code().to_string())
            .creator("receipts".to_string())
            .creation_date(day)
            .document_id(format!("receipt {} {}", receipt.business.name, receipt.shown_number())),
    );
    if let Some(attachment) = attachment {
        let embedded = EmbeddedFile {
            path: attachment.name.to_string(),
            mime_type: MimeType::new(attachment.mime_type),
            description: Some(attachment.description.to_string()),
            association_kind: AssociationKind::Alternative,
            data: attachment.data.into(),
            modification_date: Some(day),
            compress: Some(true),
            location: None,
        };
        document.embed_file(embedded).ok_or_else(|| Error::Internal {
            what: "the PDF could not be written",
            detail: "a file of that name is embedded already".into(),
        })?;
    }

    let mut pages = Pages::new(&mut document);
    for line in receipt.lines() {
        match line {
            Line::Alert(text) => pages.paragraph(bold, 14.0, &text, RED, 0.0, WIDTH),
            Line::Heading(text) => pages.paragraph(bold, 15.0, &text, BLACK, 0.0, WIDTH),
            Line::Section(text) => pages.paragraph(bold, 10.0, &text, BLACK, 0.0, WIDTH),
            Line::Plain(text) => pages.paragraph(regular, 10.0, &text, BLACK, 0.0, WIDTH),
            Line::Title { title, number } => {
                pages.paragraph(bold, 22.0, &title, BLACK, 0.0, WIDTH);
                pages.paragraph(bold, 16.0, &number, BLACK, 0.0, WIDTH);
            }
            Line::Field(label, value) => pages.field(regular, &label, &value),
            Line::Item { text, amount } => pages.spread(regular, 10.0, &text, &amount),
            Line::Total { label, amount, vat } => {
                pages.spread(bold, 13.0, &label, &amount);
                if let Some(vat) = vat {
                    pages.right(regular, 9.0, &vat);
                }
            }
            Line::Gap => pages.gap(10.0),
        }
    }
    match &receipt.slip {
        Some(Slip::QrBill(bill)) => slip::qr_bill(&mut pages, receipt, bill)?,
        Some(Slip::Epc(epc)) => slip::epc(&mut pages, receipt, epc)?,
        None => {}
    }
    pages.finish();
    document
        .finish()
        .map_err(|e| Error::Internal { what: "the PDF could not be written", detail: format!("{e:?}") })
}

/// Every text of the receipt must be printable in the embedded fonts.
fn refuse_unprintable(receipt: &Receipt) -> Result<(), Error> {
    let business = &receipt.business;
    let address = receipt.business_address().join("\n");
    let items = receipt.items.iter().map(|(text, _)| text.as_str()).collect::<Vec<_>>().join("\n");
    let fields = [
        ("item", Some(&items)),
        ("cross string", receipt.cross_string.as_ref()),
        ("stringer name", Some(&business.name)),
        ("stringer address", Some(&address)),
        ("stringer email", business.email.as_ref()),
        ("stringer phone", business.phone.as_ref()),
        ("VAT number", business.vat_number.as_ref()),
        ("customer", receipt.customer.as_ref()),
        ("racket", receipt.racket.as_ref()),
        ("string", receipt.string.as_ref()),
        ("tension", receipt.tension.as_ref()),
        ("customer note", receipt.notes.as_ref()),
        ("void reason", receipt.void_reason.as_ref()),
    ];
    for (field, text) in fields {
        if let Some(text) = text {
            check_printable(field, text)?;
        }
    }
    Ok(())
}
