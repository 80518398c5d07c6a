//! `receipts export`: a year's orders as CSV or JSON for the accountant, with totals said.

use super::output::{self, Ledger, Rows};
use super::{Context, StringerOpt};
use crate::db::credits::CreditNote;
use crate::db::listings::Listed;
use crate::db::orders::Order;
use crate::db::Access;
use crate::db::Tenant;
use crate::domain::{format_iso_local, Price, VatRate};
use crate::files::NewFile;
use crate::ops;
use anyhow::Context as _;
use chrono::NaiveDateTime;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// The year whose receipts to export
    #[arg(long)]
    year: i32,
    #[command(flatten)]
    stringer: StringerOpt,
    /// Write to this file instead of stdout (an existing file is not overwritten)
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// CSV for an accountant's program, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Ledger,
    /// For a tax audit: the stringer's year as CSV files with an index.xml in the GDPdU
    /// description standard (data access Z3), the journal and closures, and the journal's
    /// verification, written into --out-dir
    #[arg(long, requires = "out_dir", conflicts_with_all = ["output", "format"])]
    auditor: bool,
    /// The directory the auditor's export is written into (made if missing; a file there
    /// that differs is never overwritten)
    #[arg(long, value_name = "DIR", requires = "auditor")]
    out_dir: Option<PathBuf>,
}

/// One issued number of the year, as the accountant's ledger lists it: a receipt, or a
/// credit note (status `credit`).
#[derive(Serialize, Tabled)]
struct Entry {
    stringer: String,
    receipt_number: String,
    /// issued | void | credit
    status: &'static str,
    strung_at: String,
    paid_at: String,
    customer: String,
    racket: String,
    string: String,
    tension: String,
    amount: String,
    /// In percent, e.g. 8.1; empty for a receipt without VAT.
    vat_rate: String,
    /// The VAT the amount includes, and the amount without it.
    vat_amount: String,
    net_amount: String,
    currency: String,
    void_reason: String,
    order_id: i64,
    /// A credit note's original (its receipt number); the row's amounts are negative.
    credits: String,
    /// When a credit note was issued.
    credited_at: String,
    /// What part payments paid of an invoice still open.
    part_paid: String,
}

/// Count and sums of one stringer's receipts in one currency, voids apart, with the VAT
/// per rate.
#[derive(Default)]
struct Totals {
    receipts: u64,
    voids: u64,
    total: i64,
    paid: i64,
    vat: BTreeMap<VatRate, i64>,
    credit_notes: u64,
    credited: i64,
}

/// The year's totals per stringer and currency, on stderr.
fn say_totals(year: i32, totals: &BTreeMap<(String, String), Totals>) {
    for ((stringer, currency), sums) in totals {
        let vat: Vec<String> =
            sums.vat.iter().map(|(rate, vat)| format!(", VAT {} at {rate} %", Price(*vat))).collect();
        eprintln!(
            "{stringer} {}, {currency}: {}, total {}, paid {}, unpaid {}{}{}{}",
            year,
            output::count(sums.receipts as usize, "receipt"),
            Price(sums.total),
            Price(sums.paid),
            Price(sums.total - sums.paid),
            match sums.credit_notes {
                0 => String::new(),
                n => format!(
                    ", {} credited {}",
                    output::count(n as usize, "credit note"),
                    Price(sums.credited)
                ),
            },
            vat.concat(),
            if sums.voids > 0 { format!(" ({} void, not counted)", sums.voids) } else { String::new() }
        );
    }
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    if let (true, Some(dir)) = (opts.auditor, &opts.out_dir) {
        return auditor(&mut db, &opts, dir);
    }
    let tenant = opts.stringer.whose().optional(&mut db)?;
    // To a file: written whole beside it, put in place at the end.
    let mut file = match &opts.output {
        None => None,
        Some(path) => {
            Some(NewFile::create(path).map_err(|e| crate::files::cannot_write(path, e, "an export"))?)
        }
    };
    let out: Box<dyn Write + '_> = match file.as_mut() {
        None => Box::new(super::output::Stdout),
        Some(file) => Box::new(file),
    };
    let mut rows = Rows::<Entry>::to(opts.format.into(), out);
    let mut totals: BTreeMap<(String, String), Totals> = BTreeMap::new();
    // Each stringer's credit notes follow its receipts.
    let mut credit_rows: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    ops::reports::credits_of_year(&mut db, tenant.as_ref(), opts.year, |tenant, note, original| {
        let entry = credit_entry(tenant, &note, &original);
        let sums = totals.entry((entry.stringer.clone(), entry.currency.clone())).or_default();
        sums.credit_notes += 1;
        sums.credited += note.amount.0;
        if let Some(rate) = note.vat_rate {
            *sums.vat.entry(rate).or_default() -= note.vat.0;
        }
        credit_rows.entry(entry.stringer.clone()).or_default().push(entry);
        Ok(())
    })
    .context("cannot export the year")?;
    let mut without_rate = 0usize;
    ops::reports::orders_of_year(&mut db, tenant.as_ref(), opts.year, |listed, rate| {
        // A receipt numbered before rates were kept, with no rate on record: no VAT columns.
        let rate = rate.unwrap_or_else(|_| {
            without_rate += 1;
            None
        });
        let entry = entry(listed, rate);
        let later = credit_rows.split_off(&entry.stringer);
        for earlier in std::mem::replace(&mut credit_rows, later).into_values().flatten() {
            rows.push(&earlier)?;
        }
        let sums = totals.entry((entry.stringer.clone(), entry.currency.clone())).or_default();
        let amount = listed.order.total().map_or(0, |p| p.0);
        if listed.order.voided_at.is_some() {
            sums.voids += 1;
        } else {
            sums.receipts += 1;
            sums.total += amount;
            if listed.order.paid_at.is_some() {
                sums.paid += amount;
            } else {
                sums.paid += listed.order.part_paid.0;
            }
            if let Some(rate) = rate {
                *sums.vat.entry(rate).or_default() += rate.included_in(amount);
            }
        }
        Ok(rows.push(&entry)?)
    })
    .context("cannot export the year")?;
    for entry in credit_rows.into_values().flatten() {
        rows.push(&entry)?;
    }
    let written = rows.finish()?;
    // The file first: a refused one says nothing more.
    let new_file = match (file, &opts.output) {
        (Some(file), Some(path)) => {
            let new = file.commit_or_same().map_err(|e| crate::files::cannot_write(path, e, "an export"))?;
            // Once the file is there, running the export again would find it there.
            super::output::beyond_repeat();
            Some((path, new))
        }
        _ => None,
    };
    say_totals(opts.year, &totals);
    if without_rate > 0 {
        eprintln!(
            "warning: {} of a VAT-registered stringer have no VAT rate on record (set the rates in force \
             with `receipts stringer edit --vat-rate ... --vat-from ...`): their VAT columns are empty",
            output::count(without_rate, "receipt")
        );
    }
    if let Some((path, new)) = new_file {
        let numbers = output::count(written, "number");
        match new {
            true => eprintln!("wrote {numbers} of {} to {}", opts.year, path.display()),
            false => eprintln!("{} holds the same {numbers} of {} already", path.display(), opts.year),
        }
    }
    Ok(())
}

/// `--auditor`: the files written and what they hold, the verification said; a journal that
/// does not verify fails the command once everything is written.
fn auditor(db: &mut crate::db::Db, opts: &Opts, dir: &std::path::Path) -> anyhow::Result<()> {
    let tenant = opts.stringer.whose().required(db)?;
    let exported = ops::auditor::export(db, &tenant, opts.year, dir)?;
    for (file, rows) in &exported.files {
        eprintln!("{}: {}", dir.join(file).display(), output::count(*rows, "row"));
    }
    eprint!("{}", exported.report);
    eprintln!(
        "wrote the auditor's export of {} {} to {} (index.xml describes it)",
        tenant.handle(),
        opts.year,
        dir.display()
    );
    match exported.broken {
        Some(why) => Err(crate::Error::AuditFailed(format!(
            "the export is written, but the journal does not verify: {why}"
        ))
        .into()),
        None => Ok(()),
    }
}

fn entry(listed: &Listed<'_>, rate: Option<VatRate>) -> Entry {
    let order = &listed.order;
    let zone = listed.stringer.zone();
    let local = |at: Option<NaiveDateTime>| at.map(|at| format_iso_local(at, zone)).unwrap_or_default();
    Entry {
        stringer: listed.stringer.handle().to_string(),
        receipt_number: output::cell(order.number),
        status: if order.voided_at.is_some() { "void" } else { "issued" },
        strung_at: local(order.strung_at),
        paid_at: local(order.paid_at),
        customer: order.customer.clone().unwrap_or_default(),
        racket: order.racket.clone().unwrap_or_default(),
        string: order.string.clone().unwrap_or_default(),
        tension: order.tension.clone().unwrap_or_default(),
        amount: output::cell(order.total()),
        vat_rate: output::cell(rate),
        vat_amount: output::cell(
            rate.zip(order.total()).map(|(rate, total)| Price(rate.included_in(total.0))),
        ),
        net_amount: output::cell(
            rate.zip(order.total()).map(|(rate, total)| Price(total.0 - rate.included_in(total.0))),
        ),
        currency: order.currency.to_string(),
        void_reason: order.void_reason.clone().unwrap_or_default(),
        order_id: order.id.0,
        credits: String::new(),
        credited_at: String::new(),
        part_paid: output::cell(
            Some(order.part_paid).filter(|_| order.paid_at.is_none() && order.part_paid.0 > 0),
        ),
    }
}

/// A credit note's row: its number, the original's work and customer, negative amounts.
fn credit_entry(tenant: &Tenant, note: &CreditNote, original: &Order) -> Entry {
    let negative = |minor: i64| Price(-minor).to_string();
    Entry {
        stringer: tenant.handle().to_string(),
        receipt_number: note.number.to_string(),
        status: "credit",
        strung_at: String::new(),
        paid_at: String::new(),
        customer: original.customer.clone().unwrap_or_default(),
        racket: original.racket.clone().unwrap_or_default(),
        string: original.string.clone().unwrap_or_default(),
        tension: original.tension.clone().unwrap_or_default(),
        amount: negative(note.amount.0),
        vat_rate: output::cell(note.vat_rate),
        vat_amount: note.vat_rate.map(|_| negative(note.vat.0)).unwrap_or_default(),
        net_amount: note.vat_rate.map(|_| negative(note.amount.0 - note.vat.0)).unwrap_or_default(),
        currency: note.currency.to_string(),
        void_reason: note.reason.clone(),
        order_id: original.id.0,
        credits: output::cell(original.number),
        credited_at: format_iso_local(note.issued_at, tenant.zone()),
        part_paid: String::new(),
    }
}
