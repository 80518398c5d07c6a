//! The document as FatturaPA XML (tracciato 1.2.2, `FPR12` between private parties), for a
//! stringer in Italy to send through SdI: a pure function of the `Receipt`, in the numbers
//! the PDF prints (net lines that add up to the total's net, its VAT as printed).

use super::cii::amount;
use super::xml::{el, maybe, text, El};
use super::{Category, Einvoice};
use crate::domain::ReceiptNumber;
use crate::error::Error;
use crate::payment::{Postal, Slip};
use crate::receipt::Receipt;

/// The stamp duty a document without VAT above EUR 77.47 bears (DPR 642/1972), paid
/// virtually by the stringer and declared in the file.
const STAMP_DUTY_ABOVE: i64 = 7747;
const STAMP_DUTY: &str = "2.00";

/// Whether the document can be a FatturaPA file: an Italian seller with its partita IVA
/// (`IT` and 11 digits) and a structured address with the street, a buyer who can be
/// reached (an SdI code, a PEC address, or a codice fiscale for a consumer), and texts in
/// the characters and lengths the tracciato takes. Refused naming the field.
pub fn check(receipt: &Receipt) -> Result<(), Error> {
    super::check(receipt)?;
    let refuse = |field: &'static str, problem: &str| {
        Err(Error::NotForEinvoice { number: receipt.shown_number(), field, problem: problem.to_string() })
    };
    let business = &receipt.business;
    if business.country.as_deref() != Some("IT") {
        return refuse(
            "stringer country",
            "is not IT: FatturaPA is for stringers in Italy (receipt --xml writes Factur-X)",
        );
    }
    if partita_iva(receipt).is_none() {
        return refuse("stringer VAT number", "is not a partita IVA (IT and 11 digits)");
    }
    if business.street.is_none() {
        return refuse("stringer address", "has no street, which FatturaPA's Indirizzo needs");
    }
    let buyer = receipt.customer_postal.as_ref().expect("checked by super::check");
    if buyer.street.is_none() {
        return refuse("customer address", "has no street, which FatturaPA's Indirizzo needs");
    }
    let ids = &receipt.buyer;
    if buyer.country == "IT" {
        if ids.sdi_code.is_none() && ids.pec.is_none() && ids.tax_code.is_none() {
            return refuse(
                "customer SdI code",
                "is missing, and so are a PEC address and a codice fiscale: SdI cannot deliver it \
                 (receipts customer edit --sdi-code, --pec or --tax-code)",
            );
        }
        if ids.vat_id.is_none() && ids.tax_code.is_none() {
            return refuse(
                "customer tax code",
                "is missing, and so is a VAT id: FatturaPA names the buyer by one",
            );
        }
        if buyer.postcode.len() != 5 || !buyer.postcode.bytes().all(|b| b.is_ascii_digit()) {
            return refuse("customer postcode", "is not an Italian CAP of 5 digits");
        }
    }
    // The tracciato's strings are Latin-1, without control characters.
    super::check_texts(receipt, texts(receipt), "FatturaPA", |c| ('\u{20}'..='\u{ff}').contains(&c))?;
    if receipt.number.seq >= 100_000 || receipt.credit.as_ref().is_some_and(|c| c.number.0.seq >= 100_000) {
        return refuse("number", "is beyond the 99,999 a year that a progressivo can tell apart");
    }
    Ok(())
}

/// The texts of the file, with the most characters the tracciato allows for each.
fn texts(receipt: &Receipt) -> Vec<(&'static str, String, usize)> {
    let business = &receipt.business;
    let buyer = receipt.customer_postal.as_ref();
    let mut texts = vec![
        ("stringer name", business.name.clone(), 80),
        ("stringer address", street(business.street.as_deref(), business.house_number.as_deref()), 60),
        ("stringer town", business.town.clone().unwrap_or_default(), 60),
        ("customer", receipt.customer.clone().unwrap_or_default(), 80),
        (
            "customer address",
            buyer.map(|p| street(p.street.as_deref(), p.house_number.as_deref())).unwrap_or_default(),
            60,
        ),
        ("customer town", buyer.map(|p| p.town.clone()).unwrap_or_default(), 60),
    ];
    for line in Einvoice::of(receipt).lines {
        texts.push(("item", description(&line), 1000));
    }
    texts
}

fn street(street: Option<&str>, number: Option<&str>) -> String {
    [street, number].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

fn description(line: &super::InvoiceLine) -> String {
    match &line.description {
        Some(more) => format!("{} ({more})", line.name),
        None => line.name.clone(),
    }
}

/// The stringer's partita IVA: its 11 digits.
fn partita_iva(receipt: &Receipt) -> Option<String> {
    let vat = receipt.business.vat_number.as_deref()?;
    let digits = vat.strip_prefix("IT")?;
    (digits.len() == 11 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.to_string())
}

/// The progressivo of a document: 5 letters and digits, unique per stringer, from its
/// series, the year's last two digits and its number in the year (base 36 of
/// `(year mod 100 × 2 + credit) × 100000 + seq`: a century without repeating).
pub fn progressivo(number: ReceiptNumber, credit: bool) -> String {
    let mut value = ((i64::from(number.year) % 100 * 2 + i64::from(credit)) * 100_000 + number.seq) as u64;
    let mut digits = [b'0'; 5];
    for digit in digits.iter_mut().rev() {
        *digit = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(value % 36) as usize];
        value /= 36;
    }
    String::from_utf8(digits.to_vec()).expect("ASCII")
}

/// The file's name: `IT{partita IVA}_{progressivo}.xml`.
pub fn file_name(receipt: &Receipt) -> String {
    let (number, credit) = match &receipt.credit {
        Some(note) => (note.number.0, true),
        None => (receipt.number, false),
    };
    format!("IT{}_{}.xml", partita_iva(receipt).unwrap_or_default(), progressivo(number, credit))
}

/// A party's seat.
fn seat(postal: &Postal) -> El {
    let italian = postal.country == "IT";
    el(
        "Sede",
        [
            Some(text("Indirizzo", postal.street.clone().unwrap_or_default())),
            maybe("NumeroCivico", postal.house_number.as_deref()),
            // A seat abroad has no Italian CAP: the tracciato's placeholder.
            Some(text("CAP", if italian { postal.postcode.clone() } else { "00000".into() })),
            Some(text("Comune", postal.town.clone())),
            Some(text("Nazione", postal.country.clone())),
        ],
    )
}

/// A VAT identifier split as FatturaPA wants it: the country, then the code.
fn fiscal_id(name: &'static str, vat: &str) -> El {
    let compact: String = vat.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let (country, code) = compact.split_at(2.min(compact.len()));
    el(name, [Some(text("IdPaese", country)), Some(text("IdCodice", code))])
}

/// The FatturaPA XML of a document `check` accepted.
pub fn render(receipt: &Receipt) -> Vec<u8> {
    let invoice = Einvoice::of(receipt);
    let business = &receipt.business;
    let partita = partita_iva(receipt).unwrap_or_default();
    let seller_postal = Postal::of(business).expect("checked: the seller has a structured address");
    let buyer_postal = receipt.customer_postal.as_ref().expect("checked: the buyer has a structured address");
    let ids = &receipt.buyer;
    let abroad = buyer_postal.country != "IT";
    let recipient = match (&ids.sdi_code, abroad) {
        (_, true) => "XXXXXXX".to_string(),
        (Some(code), false) => code.clone(),
        (None, false) => "0000000".to_string(),
    };
    let (number, credit) = match &receipt.credit {
        Some(note) => (note.number.0, true),
        None => (receipt.number, false),
    };
    let transmission = el(
        "DatiTrasmissione",
        [
            Some(el(
                "IdTrasmittente",
                [Some(text("IdPaese", "IT")), Some(text("IdCodice", partita.clone()))],
            )),
            Some(text("ProgressivoInvio", progressivo(number, credit))),
            Some(text("FormatoTrasmissione", "FPR12")),
            Some(text("CodiceDestinatario", recipient.clone())),
            ids.pec
                .as_ref()
                .filter(|_| recipient == "0000000")
                .map(|pec| text("PECDestinatario", pec.clone())),
        ],
    );
    let seller = el(
        "CedentePrestatore",
        [
            Some(el(
                "DatiAnagrafici",
                [
                    Some(el("IdFiscaleIVA", [Some(text("IdPaese", "IT")), Some(text("IdCodice", partita))])),
                    maybe("CodiceFiscale", business.tax_number.as_deref()),
                    Some(el("Anagrafica", [Some(text("Denominazione", business.name.clone()))])),
                    Some(text("RegimeFiscale", if business.small_business { "RF19" } else { "RF01" })),
                ],
            )),
            Some(seat(&seller_postal)),
        ],
    );
    // A consumer abroad has no identifier: the tracciato's placeholder of eleven nines.
    let buyer_vat = match (&ids.vat_id, abroad) {
        (Some(vat), _) => Some(fiscal_id("IdFiscaleIVA", vat)),
        (None, true) if ids.tax_code.is_none() => Some(el(
            "IdFiscaleIVA",
            [Some(text("IdPaese", buyer_postal.country.clone())), Some(text("IdCodice", "99999999999"))],
        )),
        (None, _) => None,
    };
    let buyer = el(
        "CessionarioCommittente",
        [
            Some(el(
                "DatiAnagrafici",
                [
                    buyer_vat,
                    maybe("CodiceFiscale", ids.tax_code.as_deref()),
                    Some(el(
                        "Anagrafica",
                        [Some(text("Denominazione", receipt.customer.clone().unwrap_or_default()))],
                    )),
                ],
            )),
            Some(seat(buyer_postal)),
        ],
    );
    let stamp = (!matches!(invoice.category, Category::Standard(_)) && invoice.gross > STAMP_DUTY_ABOVE)
        .then(|| {
            el("DatiBollo", [Some(text("BolloVirtuale", "SI")), Some(text("ImportoBollo", STAMP_DUTY))])
        });
    let document = el(
        "DatiGeneraliDocumento",
        [
            Some(text("TipoDocumento", if credit { "TD04" } else { "TD01" })),
            Some(text("Divisa", invoice.currency.clone())),
            Some(text("Data", receipt.issued_on.format("%Y-%m-%d").to_string())),
            Some(text("Numero", invoice.number.clone())),
            stamp,
            Some(text("ImportoTotaleDocumento", amount(invoice.gross))),
        ],
    );
    let linked = receipt.credit.as_ref().map(|note| {
        el(
            "DatiFattureCollegate",
            [
                Some(text("IdDocumento", note.original.to_string())),
                Some(text("Data", note.original_on.format("%Y-%m-%d").to_string())),
            ],
        )
    });
    let (rate, nature, reference) = match invoice.category {
        Category::Standard(rate) => (format!("{}.{:02}", rate.0 / 100, rate.0 % 100), None, None),
        Category::Exempt(text) | Category::NotSubject(text) => ("0.00".to_string(), Some("N2.2"), Some(text)),
    };
    let lines = invoice.lines.iter().enumerate().map(|(index, line)| {
        Some(el(
            "DettaglioLinee",
            [
                Some(text("NumeroLinea", (index + 1).to_string())),
                Some(text("Descrizione", description(line))),
                Some(text("PrezzoUnitario", amount(line.net))),
                Some(text("PrezzoTotale", amount(line.net))),
                Some(text("AliquotaIVA", rate.clone())),
                nature.map(|n| text("Natura", n)),
            ],
        ))
    });
    let summary = el(
        "DatiRiepilogo",
        [
            Some(text("AliquotaIVA", rate.clone())),
            nature.map(|n| text("Natura", n)),
            Some(text("ImponibileImporto", amount(invoice.net))),
            Some(text("Imposta", amount(invoice.vat))),
            nature.is_none().then(|| text("EsigibilitaIVA", "I")),
            reference.map(|r| text("RiferimentoNormativo", r)),
        ],
    );
    let payment = match (&receipt.slip, invoice.due > 0) {
        (Some(Slip::Epc(epc)), true) => Some(el(
            "DatiPagamento",
            [
                Some(text("CondizioniPagamento", "TP02")),
                Some(el(
                    "DettaglioPagamento",
                    [
                        Some(text("ModalitaPagamento", "MP05")),
                        receipt
                            .due_on
                            .map(|day| text("DataScadenzaPagamento", day.format("%Y-%m-%d").to_string())),
                        Some(text("ImportoPagamento", amount(invoice.due))),
                        Some(text("IBAN", epc.account.as_str())),
                        epc.bic.as_ref().map(|bic| text("BIC", bic.clone())),
                        Some(text("CodicePagamento", epc.reference.as_str())),
                    ],
                )),
            ],
        )),
        _ => None,
    };
    el(
        "p:FatturaElettronica",
        [
            Some(el("FatturaElettronicaHeader", [Some(transmission), Some(seller), Some(buyer)])),
            Some(el(
                "FatturaElettronicaBody",
                [
                    Some(el("DatiGenerali", [Some(document), linked])),
                    Some(el("DatiBeniServizi", lines.chain([Some(summary)]).collect::<Vec<_>>())),
                    payment,
                ],
            )),
        ],
    )
    .attr("versione", "FPR12")
    .attr("xmlns:ds", "http://www.w3.org/2000/09/xmldsig#")
    .attr("xmlns:p", "http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2")
    .attr("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")
    .document()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progressivo_is_five_characters_and_tells_series_and_years_apart() {
        let of = |year, seq, credit| progressivo(ReceiptNumber::new(year, seq), credit);
        assert_eq!(of(2026, 1, false).len(), 5);
        assert_ne!(of(2026, 1, false), of(2026, 1, true));
        assert_ne!(of(2026, 1, false), of(2027, 1, false));
        assert_ne!(of(2026, 99_999, false), of(2026, 1, true));
        assert_eq!(of(2099, 99_999, true).len(), 5, "the largest fits");
    }
}
