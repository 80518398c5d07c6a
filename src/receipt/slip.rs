//! The payment part of an invoice, drawn on its PDF: the Swiss QR-bill (SIX implementation
//! guidelines and style guide: 210 × 105 mm at the bottom of the last page, receipt part
//! 62 mm and payment part 148 mm, Liberation Sans, the 46 mm code with the 7 mm Swiss
//! cross) and the EPC QR code with its details.

use super::canvas::{faces, slip_faces, wrap, Face, Pages, BLACK, MARGIN, MM, PAGE, WHITE};
use super::{Receipt, SlipWords};
use crate::error::Error;
use crate::payment::epc::{Epc, MAX_BYTES};
use crate::payment::qr::{self, Matrix};
use crate::payment::qrbill::QrBill;
use crate::payment::{check_qr_text, plain_amount, Who, QR_LIMITS};

/// The slip's height and its parts' widths, in millimetres.
const SLIP_HEIGHT: f32 = 105.0;
const RECEIPT_WIDTH: f32 = 62.0;

/// Every text the bill's code carries fits the QR-bill's character set and lengths.
fn check(bill: &QrBill) -> Result<(), Error> {
    check_qr_text("stringer name", &bill.creditor.name, QR_LIMITS.name)?;
    bill.creditor.postal.check(Who::Stringer)?;
    if let Some(debtor) = &bill.debtor {
        check_qr_text("customer", &debtor.name, QR_LIMITS.name)?;
        debtor.postal.check(Who::Customer)?;
    }
    check_qr_text("additional information", &bill.message, 140)
}

/// The QR-bill at the bottom of the last page, or of a page of its own when less than
/// 105 mm are free.
pub(super) fn qr_bill(pages: &mut Pages<'_>, receipt: &Receipt, bill: &QrBill) -> Result<(), Error> {
    check(bill)?;
    let matrix = qr::encode(&bill.payload()).ok_or_else(|| Error::Internal {
        what: "the QR-bill's code",
        detail: "it holds too much to be printed".into(),
    })?;
    if pages.free_below() < SLIP_HEIGHT * MM {
        pages.fresh_page();
    }
    let top = PAGE.1 - SLIP_HEIGHT * MM;
    let words = &receipt.words().slip;
    let (regular, bold) = slip_faces();
    let mut slip = Slip { pages, top, regular, bold };

    // The separation lines, and what they are for.
    slip.pages.rect(BLACK, 0.0, top, PAGE.0, 0.4);
    slip.pages.rect(BLACK, RECEIPT_WIDTH * MM, top, 0.4, SLIP_HEIGHT * MM);
    let separate = words.separate;
    let x = (PAGE.0 - regular.width(separate, 7.0)) / 2.0;
    slip.pages.place(regular, 7.0, BLACK, x, top - 1.5 * MM, separate);

    let amount = bill.amount.map(plain_amount).unwrap_or_default();
    let creditor: Vec<String> =
        std::iter::once(bill.account.grouped()).chain(bill.creditor.lines()).collect();
    let debtor = bill.debtor.as_ref().map(|debtor| debtor.lines());

    // The receipt part: 5 mm margins, headings 6 pt, values 8 pt, lines 9 pt apart.
    slip.text(bold, 11.0, 5.0, 5.0 + 3.9, words.receipt);
    let mut y = 12.0 * MM + 6.0;
    y = slip.section(words.account_payable_to, &creditor, 5.0, 52.0, y, (6.0, 8.0, 9.0));
    y = slip.section(words.reference, &[bill.reference.printed()], 5.0, 52.0, y, (6.0, 8.0, 9.0));
    match &debtor {
        Some(lines) => {
            slip.section(words.payable_by, lines, 5.0, 52.0, y, (6.0, 8.0, 9.0));
        }
        None => {
            slip.text(bold, 6.0, 5.0, y / MM, words.payable_by_name);
            slip.corners(5.0, y / MM + 1.0, 52.0, 20.0);
        }
    }
    slip.amount(words, 5.0, 12.0, 68.0, &bill.currency.to_string(), &amount, (6.0, 8.0));
    let acceptance = words.acceptance_point;
    let x = 57.0 - bold.width(acceptance, 6.0) / MM;
    slip.text(bold, 6.0, x, 82.0 + 2.1, acceptance);

    // The payment part: the code 46 mm square at (67, 17), headings 8 pt, values 10 pt.
    slip.text(bold, 11.0, 67.0, 5.0 + 3.9, words.payment_part);
    slip.code(&matrix, 67.0, 17.0, 46.0);
    slip.cross(67.0 + 23.0, 17.0 + 23.0);
    slip.amount(words, 67.0, 14.0, 68.0, &bill.currency.to_string(), &amount, (8.0, 10.0));
    let mut y = 5.0 * MM + 8.0;
    y = slip.section(words.account_payable_to, &creditor, 118.0, 87.0, y, (8.0, 10.0, 11.0));
    y = slip.section(words.reference, &[bill.reference.printed()], 118.0, 87.0, y, (8.0, 10.0, 11.0));
    y = slip.section(
        words.additional_information,
        std::slice::from_ref(&bill.message),
        118.0,
        87.0,
        y,
        (8.0, 10.0, 11.0),
    );
    match &debtor {
        Some(lines) => {
            slip.section(words.payable_by, lines, 118.0, 87.0, y, (8.0, 10.0, 11.0));
        }
        None => {
            slip.text(bold, 8.0, 118.0, y / MM, words.payable_by_name);
            slip.corners(118.0, y / MM + 1.5, 65.0, 25.0);
        }
    }
    Ok(())
}

/// Drawing on the slip, in millimetres from its top left corner.
struct Slip<'p, 'd> {
    pages: &'p mut Pages<'d>,
    /// The slip's top edge, in points from the top of the page.
    top: f32,
    regular: &'static Face,
    bold: &'static Face,
}

impl Slip<'_, '_> {
    /// Text with its baseline at (x, y) millimetres.
    fn text(&mut self, face: &'static Face, size: f32, x: f32, y: f32, text: &str) {
        self.pages.place(face, size, BLACK, x * MM, self.top + y * MM, text);
    }

    /// A heading and its lines, wrapped within `width` mm, from `y` points below the slip's
    /// top; returns where the next section starts (one empty line further down).
    fn section(
        &mut self,
        heading: &str,
        lines: &[String],
        x: f32,
        width: f32,
        y: f32,
        (head, value, leading): (f32, f32, f32),
    ) -> f32 {
        let mut y = y;
        self.pages.place(self.bold, head, BLACK, x * MM, self.top + y, heading);
        y += leading;
        for line in lines {
            for part in wrap(self.regular, value, line, width * MM) {
                self.pages.place(self.regular, value, BLACK, x * MM, self.top + y, &part);
                y += leading;
            }
        }
        y + leading * 0.6
    }

    /// The currency and the amount, side by side, their values below their headings.
    #[expect(clippy::too_many_arguments, reason = "a drawing call names where and how")]
    fn amount(
        &mut self,
        words: &SlipWords,
        x: f32,
        gap: f32,
        y: f32,
        currency: &str,
        amount: &str,
        (head, value): (f32, f32),
    ) {
        self.text(self.bold, head, x, y + head * 0.35, words.currency);
        self.text(self.bold, head, x + gap, y + head * 0.35, words.amount);
        self.text(self.regular, value, x, y + head * 0.35 + value * 0.45, currency);
        self.text(self.regular, value, x + gap, y + head * 0.35 + value * 0.45, amount);
    }

    /// The corner marks of a box the payer fills in by hand.
    fn corners(&mut self, x: f32, y: f32, width: f32, height: f32) {
        let (arm, line) = (3.0 * MM, 0.75);
        let (left, top) = (x * MM, self.top + y * MM);
        let (right, bottom) = (left + width * MM, top + height * MM);
        for (cx, cy, dx, dy) in [
            (left, top, 1.0, 1.0),
            (right, top, -1.0, 1.0),
            (left, bottom, 1.0, -1.0),
            (right, bottom, -1.0, -1.0),
        ] {
            let horizontal_x = if dx > 0.0 { cx } else { cx - arm };
            let vertical_y = if dy > 0.0 { cy } else { cy - arm };
            let edge_y = if dy > 0.0 { cy } else { cy - line };
            let edge_x = if dx > 0.0 { cx } else { cx - line };
            self.pages.rect(BLACK, horizontal_x, edge_y, arm, line);
            self.pages.rect(BLACK, edge_x, vertical_y, line, arm);
        }
    }

    /// The code's dark modules as rectangles, `size` mm square.
    fn code(&mut self, matrix: &Matrix, x: f32, y: f32, size: f32) {
        draw_modules(self.pages, matrix, x * MM, self.top + y * MM, size * MM);
    }

    /// The Swiss cross, 7 × 7 mm, centred at (x, y): a white border, a black square, a white
    /// cross in the flag's proportions.
    fn cross(&mut self, x: f32, y: f32) {
        let (cx, cy) = (x * MM, self.top + y * MM);
        let square = |pages: &mut Pages<'_>, colour, side: f32| {
            pages.rect(colour, cx - side * MM / 2.0, cy - side * MM / 2.0, side * MM, side * MM)
        };
        square(self.pages, WHITE, 7.0);
        square(self.pages, BLACK, 6.0);
        let (span, arm) = (6.0 * 20.0 / 32.0 * MM, 6.0 * 6.0 / 32.0 * MM);
        self.pages.rect(WHITE, cx - arm / 2.0, cy - span / 2.0, arm, span);
        self.pages.rect(WHITE, cx - span / 2.0, cy - arm / 2.0, span, arm);
    }
}

/// Dark modules, each row's runs merged into one rectangle.
fn draw_modules(pages: &mut Pages<'_>, matrix: &Matrix, left: f32, top: f32, size: f32) {
    let module = size / matrix.width as f32;
    for row in 0..matrix.width {
        let mut column = 0;
        while column < matrix.width {
            if !matrix.dark[row * matrix.width + column] {
                column += 1;
                continue;
            }
            let start = column;
            while column < matrix.width && matrix.dark[row * matrix.width + column] {
                column += 1;
            }
            pages.rect(
                BLACK,
                left + start as f32 * module,
                top + row as f32 * module,
                (column - start) as f32 * module,
                module,
            );
        }
    }
}

/// The EPC QR code (35 mm, error correction M) with its caption, and beside it the same
/// details as text.
pub(super) fn epc(pages: &mut Pages<'_>, receipt: &Receipt, epc: &Epc) -> Result<(), Error> {
    let payload = epc.payload();
    if payload.len() > MAX_BYTES {
        return Err(Error::BadInput(format!(
            "the EPC QR code would hold {} bytes, and it takes at most {MAX_BYTES}: shorten the stringer's name",
            payload.len()
        )));
    }
    let matrix = qr::encode(&payload).ok_or_else(|| Error::Internal {
        what: "the EPC QR code",
        detail: "it holds too much to be printed".into(),
    })?;
    let (regular, bold) = faces();
    let size = 35.0 * MM;
    let details = receipt.payment_details();
    let caption = wrap(regular, 8.0, receipt.words().scan_to_pay, size);
    let height = (size + 4.0 + caption.len() as f32 * 10.0).max(details.len() as f32 * 14.0) + 12.0;
    let top = pages.block(height, PAGE.1 - MARGIN) + 12.0;
    draw_modules(pages, &matrix, MARGIN, top, size);
    for (i, line) in caption.iter().enumerate() {
        pages.place(regular, 8.0, BLACK, MARGIN, top + size + 12.0 + i as f32 * 10.0, line);
    }
    let x = MARGIN + size + 10.0 * MM;
    for (i, (label, value)) in details.iter().enumerate() {
        let baseline = top + 10.0 + i as f32 * 14.0;
        pages.place(bold, 9.0, BLACK, x, baseline, label);
        pages.place(regular, 9.0, BLACK, x + 38.0 * MM, baseline, value);
    }
    Ok(())
}
