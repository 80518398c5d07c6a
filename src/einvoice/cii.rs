//! The document as UN/CEFACT Cross Industry Invoice XML in the EN 16931 profile
//! (`urn:cen.eu:en16931:2017`), as Factur-X 1.07 and ZUGFeRD 2.3 carry it: a pure function
//! of the `Receipt`, so the XML says what the PDF says, in the same numbers.

use super::xml::{el, maybe, text, El};
use super::{Category, Einvoice};
use crate::payment::{Postal, Slip};
use crate::receipt::Receipt;
use chrono::NaiveDate;

/// The CII XML of a document `super::check` accepted.
pub fn render(receipt: &Receipt) -> Vec<u8> {
    let invoice = Einvoice::of(receipt);
    let document = el(
        "rsm:CrossIndustryInvoice",
        [
            Some(el(
                "rsm:ExchangedDocumentContext",
                [Some(el(
                    "ram:GuidelineSpecifiedDocumentContextParameter",
                    [Some(text("ram:ID", "urn:cen.eu:en16931:2017"))],
                ))],
            )),
            Some(el(
                "rsm:ExchangedDocument",
                [
                    Some(text("ram:ID", invoice.number.clone())),
                    Some(text("ram:TypeCode", if receipt.credit.is_some() { "381" } else { "380" })),
                    Some(el("ram:IssueDateTime", [Some(date("udt:DateTimeString", receipt.issued_on))])),
                    invoice
                        .note
                        .clone()
                        .map(|note| el("ram:IncludedNote", [Some(text("ram:Content", note))])),
                ],
            )),
            Some(el(
                "rsm:SupplyChainTradeTransaction",
                invoice
                    .lines
                    .iter()
                    .enumerate()
                    .map(|(index, line)| Some(line_item(index + 1, line, &invoice)))
                    .chain([
                        Some(agreement(receipt, &invoice)),
                        Some(el(
                            "ram:ApplicableHeaderTradeDelivery",
                            [receipt.service_date.map(|day| {
                                el(
                                    "ram:ActualDeliverySupplyChainEvent",
                                    [Some(el(
                                        "ram:OccurrenceDateTime",
                                        [Some(date("udt:DateTimeString", day))],
                                    ))],
                                )
                            })],
                        )),
                        Some(settlement(receipt, &invoice)),
                    ])
                    .collect::<Vec<_>>(),
            )),
        ],
    )
    .attr("xmlns:rsm", "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100")
    .attr("xmlns:qdt", "urn:un:unece:uncefact:data:standard:QualifiedDataType:100")
    .attr("xmlns:ram", "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100")
    .attr("xmlns:udt", "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100");
    document.document()
}

/// A date as CII writes it: `20261206`, format 102.
fn date(name: &'static str, day: NaiveDate) -> El {
    text(name, day.format("%Y%m%d").to_string()).attr("format", "102")
}

/// Minor units as a decimal amount with two places: `1234` is `12.34`.
pub fn amount(minor: i64) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", minor.abs() / 100, minor.abs() % 100)
}

/// The VAT of a line or of the breakdown: its category, and the rate (0 when exempt).
fn tax(invoice: &Einvoice, calculated: Option<i64>, basis: Option<i64>) -> El {
    let (code, rate) = match invoice.category {
        Category::Standard(rate) => ("S", rate.text('.')),
        Category::Exempt(_) => ("E", "0".to_string()),
        Category::NotSubject(_) => ("O", String::new()),
    };
    let reason = match invoice.category {
        Category::Exempt(reason) | Category::NotSubject(reason) => Some(reason),
        Category::Standard(_) => None,
    };
    el(
        "ram:ApplicableTradeTax",
        [
            calculated.map(|minor| text("ram:CalculatedAmount", amount(minor))),
            Some(text("ram:TypeCode", "VAT")),
            basis.and(reason).map(|reason| text("ram:ExemptionReason", reason)),
            basis.map(|minor| text("ram:BasisAmount", amount(minor))),
            Some(text("ram:CategoryCode", code)),
            // Not subject to VAT has no rate at all.
            (code != "O").then(|| text("ram:RateApplicablePercent", rate)),
        ],
    )
}

fn line_item(id: usize, line: &super::InvoiceLine, invoice: &Einvoice) -> El {
    el(
        "ram:IncludedSupplyChainTradeLineItem",
        [
            Some(el("ram:AssociatedDocumentLineDocument", [Some(text("ram:LineID", id.to_string()))])),
            Some(el(
                "ram:SpecifiedTradeProduct",
                [
                    Some(text("ram:Name", line.name.clone())),
                    maybe("ram:Description", line.description.as_deref()),
                ],
            )),
            Some(el(
                "ram:SpecifiedLineTradeAgreement",
                [Some(el(
                    "ram:NetPriceProductTradePrice",
                    [Some(text("ram:ChargeAmount", amount(line.net)))],
                ))],
            )),
            Some(el(
                "ram:SpecifiedLineTradeDelivery",
                [Some(text("ram:BilledQuantity", "1").attr("unitCode", "C62"))],
            )),
            Some(el(
                "ram:SpecifiedLineTradeSettlement",
                [
                    Some(tax(invoice, None, None)),
                    Some(el(
                        "ram:SpecifiedTradeSettlementLineMonetarySummation",
                        [Some(text("ram:LineTotalAmount", amount(line.net)))],
                    )),
                ],
            )),
        ],
    )
}

/// A party's postal address (BG-5, BG-8).
fn address(postal: &Postal) -> El {
    let street = match (&postal.street, &postal.house_number) {
        (Some(street), Some(number)) => Some(format!("{street} {number}")),
        (Some(street), None) => Some(street.clone()),
        (None, _) => None,
    };
    el(
        "ram:PostalTradeAddress",
        [
            Some(text("ram:PostcodeCode", postal.postcode.clone())),
            maybe("ram:LineOne", street.as_deref()),
            Some(text("ram:CityName", postal.town.clone())),
            Some(text("ram:CountryID", postal.country.clone())),
        ],
    )
}

/// The seller and the buyer (BG-4, BG-7) and the buyer's reference (BT-10).
fn agreement(receipt: &Receipt, invoice: &Einvoice) -> El {
    let business = &receipt.business;
    let seller_postal = Postal::of(business).expect("checked: the seller has a structured address");
    let buyer_postal = receipt.customer_postal.as_ref().expect("checked: the buyer has a structured address");
    let contact = (business.email.is_some() || business.phone.is_some()).then(|| {
        el(
            "ram:DefinedTradeContact",
            [
                Some(text("ram:PersonName", business.name.clone())),
                business.phone.as_ref().map(|phone| {
                    el(
                        "ram:TelephoneUniversalCommunication",
                        [Some(text("ram:CompleteNumber", phone.clone()))],
                    )
                }),
                business.email.as_ref().map(|email| {
                    el("ram:EmailURIUniversalCommunication", [Some(text("ram:URIID", email.clone()))])
                }),
            ],
        )
    });
    // A seller with neither a VAT id nor a legal registration (a German small business has
    // only its Steuernummer) is identified by its tax number as the seller's identifier too,
    // as BR-CO-26 wants one of the three.
    let identifier = match (&business.vat_number, &business.siret) {
        (None, None) => business.tax_number.clone(),
        _ => None,
    };
    let seller = el(
        "ram:SellerTradeParty",
        [
            identifier.map(|id| text("ram:ID", id)),
            Some(text("ram:Name", business.name.clone())),
            business.siret.as_ref().map(|siret| {
                el(
                    "ram:SpecifiedLegalOrganization",
                    [Some(text("ram:ID", siret.clone()).attr("schemeID", "0009"))],
                )
            }),
            contact,
            Some(address(&seller_postal)),
            business.email.as_ref().map(|email| {
                el(
                    "ram:URIUniversalCommunication",
                    [Some(text("ram:URIID", email.clone()).attr("schemeID", "EM"))],
                )
            }),
            business.vat_number.as_ref().map(|vat| {
                el(
                    "ram:SpecifiedTaxRegistration",
                    [Some(text("ram:ID", compact(vat)).attr("schemeID", "VA"))],
                )
            }),
            business.tax_number.as_ref().map(|tax| {
                el("ram:SpecifiedTaxRegistration", [Some(text("ram:ID", tax.clone()).attr("schemeID", "FC"))])
            }),
        ],
    );
    // "Not subject to VAT" names no VAT identifier of either party (BR-O-02).
    let buyer_vat =
        receipt.buyer.vat_id.as_ref().filter(|_| !matches!(invoice.category, Category::NotSubject(_)));
    let buyer = el(
        "ram:BuyerTradeParty",
        [
            Some(text("ram:Name", receipt.customer.clone().unwrap_or_default())),
            Some(address(buyer_postal)),
            buyer_vat.map(|vat| {
                el(
                    "ram:SpecifiedTaxRegistration",
                    [Some(text("ram:ID", compact(vat)).attr("schemeID", "VA"))],
                )
            }),
        ],
    );
    el(
        "ram:ApplicableHeaderTradeAgreement",
        [maybe("ram:BuyerReference", receipt.buyer.reference.as_deref()), Some(seller), Some(buyer)],
    )
}

/// A VAT identifier as machines read it: no spaces, dots or dashes (`CHE123456789MWST`).
fn compact(vat: &str) -> String {
    vat.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}

/// Payment (BG-16), the VAT breakdown (BG-23), the terms, the totals (BG-22) and, for a
/// credit note, the invoice it credits (BG-3).
fn settlement(receipt: &Receipt, invoice: &Einvoice) -> El {
    let currency = invoice.currency.clone();
    let transfer = receipt.slip.as_ref().map(|slip| {
        let (account, reference, bic) = match slip {
            Slip::QrBill(bill) => (&bill.account, &bill.reference, None),
            Slip::Epc(epc) => (&epc.account, &epc.reference, epc.bic.as_ref()),
        };
        (account.as_str().to_string(), reference.as_str().to_string(), bic.cloned())
    });
    let means = transfer.as_ref().map(|(iban, _, bic)| {
        el(
            "ram:SpecifiedTradeSettlementPaymentMeans",
            [
                // SEPA credit transfer for euros, a credit transfer otherwise (a Swiss franc QR-bill).
                Some(text("ram:TypeCode", if currency == "EUR" { "58" } else { "30" })),
                Some(el(
                    "ram:PayeePartyCreditorFinancialAccount",
                    [
                        Some(text("ram:IBANID", iban.clone())),
                        Some(text("ram:AccountName", receipt.business.payee().to_string())),
                    ],
                )),
                bic.as_ref().map(|bic| {
                    el(
                        "ram:PayeeSpecifiedCreditorFinancialInstitution",
                        [Some(text("ram:BICID", bic.clone()))],
                    )
                }),
            ],
        )
    });
    let terms = (invoice.due > 0).then(|| {
        el(
            "ram:SpecifiedTradePaymentTerms",
            [receipt.due_on.map(|day| el("ram:DueDateDateTime", [Some(date("udt:DateTimeString", day))]))],
        )
    });
    let credited = receipt.credit.as_ref().map(|credit| {
        el(
            "ram:InvoiceReferencedDocument",
            [
                Some(text("ram:IssuerAssignedID", credit.original.to_string())),
                Some(el(
                    "ram:FormattedIssueDateTime",
                    [Some(date("qdt:DateTimeString", credit.original_on))],
                )),
            ],
        )
    });
    el(
        "ram:ApplicableHeaderTradeSettlement",
        [
            transfer.as_ref().map(|(_, reference, _)| text("ram:PaymentReference", reference.clone())),
            Some(text("ram:InvoiceCurrencyCode", currency.clone())),
            means,
            Some(tax(invoice, Some(invoice.vat), Some(invoice.net))),
            terms,
            Some(el(
                "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
                [
                    Some(text("ram:LineTotalAmount", amount(invoice.net))),
                    Some(text("ram:TaxBasisTotalAmount", amount(invoice.net))),
                    Some(text("ram:TaxTotalAmount", amount(invoice.vat)).attr("currencyID", currency)),
                    Some(text("ram:GrandTotalAmount", amount(invoice.gross))),
                    Some(text("ram:TotalPrepaidAmount", amount(invoice.gross - invoice.due))),
                    Some(text("ram:DuePayableAmount", amount(invoice.due))),
                ],
            )),
            credited,
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_have_two_places_and_their_sign() {
        assert_eq!(amount(1234), "12.34");
        assert_eq!(amount(5), "0.05");
        assert_eq!(amount(-250), "-2.50");
        assert_eq!(amount(0), "0.00");
    }
}
