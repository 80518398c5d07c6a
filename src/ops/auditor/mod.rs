//! The auditor's export (SPEC 23): one stringer's year as CSV files with an `index.xml` in
//! the GDPdU description standard (German tax audit data access, Z3) and its document type
//! beside it, plus the result of `audit --verify`. Files are written whole; a file there
//! already is never overwritten (the same bytes are taken as written).

use crate::db::chain;
use crate::db::closures::{self, Closure};
use crate::db::credits::{self, CreditNote};
use crate::db::listings::{self, Filter};
use crate::db::orders::Order;
use crate::db::receipts::Frozen;
use crate::db::{items, Db, DbConn, Tenant};
use crate::domain::journal::check_value;
use crate::domain::{format_iso_local, local_date, owed_when_paid, year_start, Movement, Price, VatRate};
use crate::error::Error;
use crate::files::{cannot_write, NewFile};
use chrono::{NaiveDate, NaiveDateTime};
use std::collections::HashMap;
use std::path::Path;

const DTD_NAME: &str = "gdpdu-01-09-2004.dtd";
const DTD: &str = include_str!("gdpdu-01-09-2004.dtd");

mod tables;
use tables::Kind::{Day, Number, Text};
use tables::TABLES;

/// What the export wrote.
#[derive(Debug)]
pub struct Exported {
    /// Each file and its rows (index.xml, the document type and the report: none).
    pub files: Vec<(&'static str, usize)>,
    /// The journal's verification, as `audit --verify` words it; the first break if any.
    pub report: String,
    pub broken: Option<String>,
}

/// Writes the stringer's `year` into `dir` (made if missing), each table's rows as they are
/// read.
pub fn export(db: &mut Db, tenant: &Tenant, year: i32, dir: &Path) -> Result<Exported, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::InputFile(format!("cannot make {}: {e}", dir.display())))?;
    let mut tables =
        TABLES.iter().map(|table| Csv::create(&dir.join(table.file))).collect::<Result<Vec<_>, _>>()?;
    let (report, broken) = db.read(|conn| gather(conn, tenant, year, &mut tables))?;
    let mut files = Vec::new();
    for (table, csv) in TABLES.iter().zip(tables) {
        files.push((table.file, csv.commit()?));
    }
    write(dir, "verify.txt", report.as_bytes())?;
    write(dir, DTD_NAME, DTD.as_bytes())?;
    write(dir, "index.xml", index(tenant, year).as_bytes())?;
    Ok(Exported { files, report, broken })
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    let mut file = NewFile::create(&path).map_err(|e| cannot_write(&path, e, "export"))?;
    std::io::Write::write_all(&mut file, bytes).map_err(|e| cannot_write(&path, e, "export"))?;
    file.commit_or_same().map_err(|e| cannot_write(&path, e, "export"))?;
    Ok(())
}

/// A table's file being written, as the index describes it: `;` between columns, `"`
/// around text that needs it, CRLF after each record, no header line.
struct Csv {
    path: std::path::PathBuf,
    writer: csv::Writer<NewFile>,
    rows: usize,
}

impl Csv {
    fn create(path: &Path) -> Result<Csv, Error> {
        let file = NewFile::create(path).map_err(|e| cannot_write(path, e, "export"))?;
        let writer = csv::WriterBuilder::new()
            .delimiter(b';')
            .terminator(csv::Terminator::CRLF)
            .has_headers(false)
            .from_writer(file);
        Ok(Csv { path: path.to_path_buf(), writer, rows: 0 })
    }

    fn push(&mut self, row: &[String]) -> Result<(), Error> {
        self.rows += 1;
        self.writer
            .write_record(row)
            .map_err(|e| Error::InputFile(format!("cannot write {}: {e}", self.path.display())))
    }

    /// Puts the file in place (the same bytes there already are taken as written); its rows.
    fn commit(self) -> Result<usize, Error> {
        let path = self.path;
        let file = self.writer.into_inner().map_err(|e| cannot_write(&path, e.into_error(), "export"))?;
        file.commit_or_same().map_err(|e| cannot_write(&path, e, "export"))?;
        Ok(self.rows)
    }
}

/// The year's rows of every table, and the journal's verification.
fn gather(
    conn: &mut DbConn,
    tenant: &Tenant,
    year: i32,
    tables: &mut [Csv],
) -> Result<(String, Option<String>), Error> {
    let [documents, lines, vat, payments, reminders, journal, closures, einvoices] = tables else {
        return Err(Error::Internal { what: "the auditor's export", detail: "a table is missing".into() });
    };
    let zone = tenant.zone();
    let (from, until) = (year_start(year, zone), year_start(year + 1, zone));
    let known = Known {
        frozen: Frozen::load(conn, Some(tenant))?,
        items: items::of_year(conn, tenant, year)?,
        checks: check_values(conn, tenant, from, until)?,
        bank: crate::db::applied_payments::transfers_of_year(conn, tenant, year)?,
        parts: crate::db::part_payments::of_year(conn, tenant, year)?,
    };
    let filter = Filter { year: Some(year), ..Filter::default() };
    let mut originals: HashMap<i64, Order> = HashMap::new();
    listings::for_each(conn, Some(tenant), &filter, None, |conn, listed| {
        let order = listed.order;
        receipt_rows(
            conn,
            tenant,
            &order,
            &known,
            [&mut *documents, &mut *lines, &mut *vat, &mut *payments],
        )?;
        // Kept for its credit notes' rows, when it has any.
        if order.credited.0 > 0 {
            originals.insert(order.id.0, order);
        }
        Ok(())
    })?;
    for note in credits::of_year(conn, tenant, year)? {
        credit_rows(
            conn,
            tenant,
            &note,
            &mut originals,
            &known.checks,
            [&mut *documents, &mut *lines, &mut *vat, &mut *payments],
        )?;
    }
    reminder_rows(conn, tenant, (from, until), reminders)?;
    journal_rows(conn, tenant, (from, until), journal)?;
    for closure in closures::all(conn, tenant)? {
        if closure.day >= first_day(year) && closure.day < first_day(year + 1) {
            closures.push(&closure_row(closure))?;
        }
    }
    for written in crate::db::einvoices::written(conn, tenant, crate::db::einvoices::Which::Year(year))? {
        einvoices.push(&[
            written.number(),
            format_iso_local(written.at, zone),
            written.form.unwrap_or_default(),
            written.file.unwrap_or_default(),
            written.sha256.unwrap_or_default(),
        ])?;
    }
    let (report, broken) = verify_report(conn, tenant)?;
    Ok((report, broken))
}

/// What the year's rows are made from besides the orders: what the documents froze, the
/// items, the check values, the bank transfers.
struct Known {
    frozen: Frozen,
    items: HashMap<i64, Vec<crate::domain::Item>>,
    checks: HashMap<(&'static str, i64), String>,
    bank: HashMap<i64, Vec<crate::db::applied_payments::Transfer>>,
    parts: HashMap<i64, Vec<crate::db::part_payments::Part>>,
}

/// A receipt's rows: the document, its lines, its VAT, and the money received for it.
fn receipt_rows(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: &Order,
    known: &Known,
    [documents, lines, vat, payments]: [&mut Csv; 4],
) -> Result<(), Error> {
    let Some(number) = order.number else { return Ok(()) };
    let number = number.to_string();
    let zone = tenant.zone();
    let day = |at: NaiveDateTime| dotted(local_date(at, zone));
    let money = |minor: i64| Price(minor).to_string();
    // A receipt numbered before rates were kept has no VAT columns, as in `export`.
    let rate = known.frozen.vat_rate(order, tenant).unwrap_or(None);
    let total = order.total().map_or(0, |p| p.0);
    let void = order.voided_at.is_some();
    let vat_of = |rate: Option<VatRate>| rate.map_or(0, |r| r.included_in(total));
    documents.push(&[
        number.clone(),
        "receipt".into(),
        if void { "void" } else { "issued" }.into(),
        order.strung_at.map(day).unwrap_or_default(),
        order.strung_at.map(|at| format_iso_local(at, zone)).unwrap_or_default(),
        order.id.0.to_string(),
        order.customer.clone().unwrap_or_default(),
        work(order),
        money(total),
        rate.map(|r| r.to_string()).unwrap_or_default(),
        money(vat_of(rate)),
        money(total - vat_of(rate)),
        order.currency.to_string(),
        order.paid_at.map(day).unwrap_or_default(),
        order.payment_method.map(|m| m.to_string()).unwrap_or_default(),
        String::new(),
        order.void_reason.clone().unwrap_or_default(),
        known.checks.get(&("mint", order.id.0)).cloned().unwrap_or_default(),
    ])?;
    let stringing = Some(work(order)).filter(|w| !w.is_empty()).unwrap_or_else(|| "stringing".into());
    lines.push(&[number.clone(), "1".into(), stringing, money(order.price.map_or(0, |p| p.0))])?;
    for (item, position) in known.items.get(&order.id.0).into_iter().flatten().zip(2..) {
        lines.push(&[number.clone(), position.to_string(), item.text.clone(), money(item.price.0)])?;
    }
    if let (Some(rate), false) = (rate, void) {
        let included = vat_of(Some(rate));
        vat.push(&[
            number.clone(),
            rate.to_string(),
            money(total),
            money(included),
            money(total - included),
        ])?;
    }
    for part in known.parts.get(&order.id.0).into_iter().flatten() {
        payments.push(&[
            number.clone(),
            day(part.paid_at),
            part.method.to_string(),
            money(part.amount_minor),
            order.currency.to_string(),
            String::new(),
        ])?;
    }
    let (Some(paid_at), false) = (order.paid_at, void) else { return Ok(()) };
    if let Some(transfers) = known.bank.get(&order.id.0) {
        for (booked, amount, currency, reference) in transfers {
            let method = "transfer".to_string();
            payments.push(&[
                number.clone(),
                dotted(*booked),
                method,
                money(*amount),
                currency.clone(),
                reference.clone(),
            ])?;
        }
        return Ok(());
    }
    // What was owed when it was paid, as every sum of a day's money counts it.
    let taken_back = match order.credited.0 {
        0 => Vec::new(),
        _ => credits::taken_back(conn, tenant, &[order.id.0])?.remove(&order.id.0).unwrap_or_default(),
    };
    let owed = owed_when_paid(total, &taken_back, paid_at) - order.part_paid.0;
    let paid = Movement::payment(order.payment_method, rate, owed, 0);
    payments.push(&[
        number,
        day(paid_at),
        order.payment_method.map(|m| m.to_string()).unwrap_or_default(),
        money(paid.amount),
        order.currency.to_string(),
        String::new(),
    ])
}

/// The reminders issued in the period, each with its invoice and check value.
fn reminder_rows(
    conn: &mut DbConn,
    tenant: &Tenant,
    period: (NaiveDateTime, NaiveDateTime),
    reminders: &mut Csv,
) -> Result<(), Error> {
    let zone = tenant.zone();
    let day = |at: NaiveDateTime| dotted(local_date(at, zone));
    let money = |minor: i64| Price(minor).to_string();
    for reminder in crate::db::reminders::in_period(conn, tenant, period)? {
        let invoice = originals_number(conn, tenant, reminder.order)?;
        let check = crate::db::reminders::issuing_hash(conn, tenant, reminder.order, reminder.level)?;
        let delivered = match (reminder.sent_at, reminder.printed_at) {
            (Some(_), _) => "email",
            (None, Some(_)) => "post",
            (None, None) => "",
        };
        reminders.push(&[
            invoice,
            reminder.level.to_string(),
            day(reminder.issued_at),
            format_iso_local(reminder.issued_at, zone),
            money(reminder.open.0),
            money(reminder.fee.0),
            money(reminder.asked().0),
            reminder.currency.to_string(),
            dotted(reminder.due_on),
            delivered.into(),
            reminder.delivered().map(day).unwrap_or_default(),
            check.unwrap_or_default(),
        ])?;
    }
    Ok(())
}

/// The journal's events of the period, each with its chain columns.
fn journal_rows(
    conn: &mut DbConn,
    tenant: &Tenant,
    period: (NaiveDateTime, NaiveDateTime),
    journal: &mut Csv,
) -> Result<(), Error> {
    chain::for_each_between(conn, tenant, period, |e| {
        let number = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
        let text = |t: Option<String>| t.unwrap_or_default();
        journal.push(&[
            number(e.seq),
            e.created_at.and_utc().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            e.kind,
            e.year.to_string(),
            number(e.first_seq),
            number(e.last_seq),
            number(e.order_id),
            number(e.counter_old),
            number(e.counter_new),
            text(e.reason),
            text(e.field),
            text(e.old_value),
            text(e.new_value),
            text(e.document_hash),
            text(e.prev_hash),
            text(e.hash),
        ])
    })
}

/// The receipt number of one of the tenant's orders (a reminded invoice's).
fn originals_number(
    conn: &mut DbConn,
    tenant: &Tenant,
    order: crate::domain::OrderId,
) -> Result<String, Error> {
    Ok(crate::db::orders::find(conn, tenant, order)?.number.map(|n| n.to_string()).unwrap_or_default())
}

/// A credit note's rows: the document, its line, its VAT, and the money paid back.
fn credit_rows(
    conn: &mut DbConn,
    tenant: &Tenant,
    note: &CreditNote,
    originals: &mut HashMap<i64, Order>,
    checks: &HashMap<(&'static str, i64), String>,
    [documents, lines, vat, payments]: [&mut Csv; 4],
) -> Result<(), Error> {
    let Some(order_id) = note.order else { return Ok(()) };
    let original = match originals.get(&order_id.0) {
        Some(order) => order.clone(),
        None => crate::db::orders::find(conn, tenant, order_id)?,
    };
    let zone = tenant.zone();
    let money = |minor: i64| Price(minor).to_string();
    let number = note.number.to_string();
    let original_number = original.number.map(|n| n.to_string()).unwrap_or_default();
    documents.push(&[
        number.clone(),
        "credit_note".into(),
        "issued".into(),
        dotted(local_date(note.issued_at, zone)),
        format_iso_local(note.issued_at, zone),
        order_id.0.to_string(),
        original.customer.clone().unwrap_or_default(),
        work(&original),
        money(-note.amount.0),
        note.vat_rate.map(|r| r.to_string()).unwrap_or_default(),
        money(-note.vat.0),
        money(-(note.amount.0 - note.vat.0)),
        note.currency.to_string(),
        String::new(),
        String::new(),
        original_number.clone(),
        note.reason.clone(),
        checks.get(&("credit", note.number.0.seq)).cloned().unwrap_or_default(),
    ])?;
    lines.push(&[
        number.clone(),
        "1".into(),
        format!("{original_number}: {}", note.reason),
        money(-note.amount.0),
    ])?;
    if let Some(rate) = note.vat_rate {
        vat.push(&[
            number.clone(),
            rate.to_string(),
            money(-note.amount.0),
            money(-note.vat.0),
            money(-(note.amount.0 - note.vat.0)),
        ])?;
    }
    if let Some(method) = note.refund.method() {
        let day = dotted(local_date(note.issued_at, zone));
        payments.push(&[
            number,
            day,
            method.to_string(),
            money(-note.amount.0),
            note.currency.to_string(),
            String::new(),
        ])?;
    }
    Ok(())
}

/// Racket, string and tension as one line.
fn work(order: &Order) -> String {
    let strings = crate::domain::strings_line(order.string.as_deref(), order.cross_string.as_deref());
    [order.racket.as_deref(), strings.as_deref(), order.tension.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

/// DD.MM.YYYY, the standard's default.
fn dotted(day: NaiveDate) -> String {
    day.format("%d.%m.%Y").to_string()
}

fn first_day(year: i32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// The check values of the documents issued in the period: by (event kind, order id) for
/// receipts and (kind, credit sequence) for credit notes.
fn check_values(
    conn: &mut DbConn,
    tenant: &Tenant,
    from: NaiveDateTime,
    until: NaiveDateTime,
) -> Result<HashMap<(&'static str, i64), String>, Error> {
    let live_from = chain::live_from(conn, tenant)?;
    let mut checks = HashMap::new();
    chain::for_each_between(conn, tenant, (from, until), |event| {
        if let (Some(seq), Some(hash)) = (event.seq, &event.hash) {
            match (event.kind.as_str(), event.order_id, event.first_seq) {
                ("mint", Some(order), _) if seq >= live_from => {
                    checks.insert(("mint", order), check_value(hash))
                }
                ("credit", _, Some(credit)) if seq >= live_from => {
                    checks.insert(("credit", credit), check_value(hash))
                }
                _ => None,
            };
        }
        Ok(())
    })?;
    Ok(checks)
}

fn closure_row(c: Closure) -> Vec<String> {
    vec![
        c.seq.to_string(),
        dotted(c.day),
        c.first_event_seq.to_string(),
        c.event_seq.to_string(),
        c.event_hash,
        c.totals,
        c.grand_totals,
        c.previous,
        c.digest,
        c.public_key,
        c.signature,
    ]
}

/// `audit --verify` of the stringer, as its report: its lines, and the first break.
fn verify_report(conn: &mut DbConn, tenant: &Tenant) -> Result<(String, Option<String>), Error> {
    let verified = crate::ops::journal::verify_journal(conn, tenant, None, &[])?;
    let report = crate::ops::reports::verification(&[verified], None, &[]);
    let text: String = report.lines.iter().map(|line| format!("{line}\n")).collect();
    Ok((text, report.broken))
}

/// The index in the GDPdU description standard.
fn index(tenant: &Tenant, year: i32) -> String {
    let x = |text: &str| quick_xml::escape::escape(text).into_owned();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!("<!DOCTYPE DataSet SYSTEM \"{DTD_NAME}\">\n<DataSet>\n  <Version>1.0</Version>\n"));
    xml.push_str(&format!(
        "  <DataSupplier>\n    <Name>{}</Name>\n    <Location>receipts</Location>\n    <Comment>{}</Comment>\n  </DataSupplier>\n",
        x(tenant.handle()),
        x(&format!(
            "The year {year} of stringer {}, written by receipts {}; verify.txt holds the journal's verification",
            tenant.handle(),
            env!("CARGO_PKG_VERSION")
        ))
    ));
    xml.push_str(&format!(
        "  <Media>\n    <Name>{}</Name>\n",
        x(&format!("receipts {} {year}", tenant.handle()))
    ));
    for table in TABLES {
        xml.push_str("    <Table>\n");
        xml.push_str(&format!("      <URL>{}</URL>\n      <Name>{}</Name>\n", table.file, table.name));
        xml.push_str(&format!("      <Description>{}</Description>\n", x(table.description)));
        xml.push_str(&format!(
            "      <Validity>\n        <Range>\n          <From>01.01.{year}</From>\n          <To>31.12.{year}</To>\n        </Range>\n        <Format>DD.MM.YYYY</Format>\n      </Validity>\n"
        ));
        xml.push_str("      <UTF8/>\n      <DecimalSymbol>.</DecimalSymbol>\n      <DigitGroupingSymbol>,</DigitGroupingSymbol>\n");
        xml.push_str("      <VariableLength>\n");
        xml.push_str("        <ColumnDelimiter>;</ColumnDelimiter>\n        <RecordDelimiter>&#13;&#10;</RecordDelimiter>\n        <TextEncapsulator>\"</TextEncapsulator>\n");
        for (i, column) in table.columns.iter().enumerate() {
            let element = if i < table.keys { "VariablePrimaryKey" } else { "VariableColumn" };
            let kind = match column.kind {
                Text => "<AlphaNumeric/>".to_string(),
                Number(0) => "<Numeric/>".to_string(),
                Number(places) => format!("<Numeric><Accuracy>{places}</Accuracy></Numeric>"),
                Day => "<Date><Format>DD.MM.YYYY</Format></Date>".to_string(),
            };
            xml.push_str(&format!(
                "        <{element}>\n          <Name>{}</Name>\n          <Description>{}</Description>\n          {kind}\n        </{element}>\n",
                column.name,
                x(column.description)
            ));
        }
        if let Some(references) = table.refers_to {
            xml.push_str(&format!(
                "        <ForeignKey>\n          <Name>number</Name>\n          <References>{references}</References>\n        </ForeignKey>\n"
            ));
        }
        xml.push_str("      </VariableLength>\n    </Table>\n");
    }
    xml.push_str("  </Media>\n</DataSet>\n");
    xml
}
