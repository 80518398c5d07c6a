use super::{output, Context, StringerOpt};
use crate::db::queue;
use crate::db::{Access, Db, Tenant};
use crate::domain::{local_date, now_utc, OrderId};
use crate::receipt::label::{self, Label, Size};
use crate::Error;
use clap::builder::PossibleValue;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
#[group(id = "which", required = true, multiple = false, args = ["order", "queue"])]
pub struct Opts {
    /// The order: its id, or its receipt number (YYYY-NNNN, with --stringer)
    #[arg(value_name = "ORDER")]
    order: Option<String>,
    /// One label per open order of the queue instead
    #[arg(long)]
    queue: bool,
    /// Write the PDF to this file (- for stdout) [default: label-ORDER.pdf, or with --queue
    /// labels-DATE.pdf]; never over a different file
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The label's size
    #[arg(long, default_value = "62x100mm", value_parser = super::one_of::<Size>(
        Size::ALL.map(|s| PossibleValue::new(s.as_str()))))]
    size: Size,
    /// Where the web counter answers (e.g. https://shop.example): the QR code then opens the
    /// order's page; without it the code holds `receipts:order:ID`
    #[arg(long, env = "RECEIPTS_BASE_URL", value_name = "URL", value_parser = parse_base_url)]
    base_url: Option<url::Url>,
    #[command(flatten)]
    stringer: StringerOpt,
}

fn parse_base_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text.trim()).map_err(|e| format!("\"{text}\" is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("\"{text}\" is not a web address (expected https://HOST/...)"));
    }
    Ok(url)
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let (labels, default_name, zone) = if opts.queue {
        let tenant = opts.stringer.required(&mut db)?;
        let now = now_utc();
        let labels = db.read(|conn| {
            let queue = queue::of(conn, &tenant, now)?;
            Ok(queue
                .open
                .iter()
                .map(|order| Label::of(order, tenant.zone(), opts.base_url.as_ref().map(url::Url::as_str)))
                .collect::<Vec<_>>())
        })?;
        let day = local_date(now, tenant.zone());
        (labels, format!("labels-{day}.pdf"), tenant.zone())
    } else {
        let (tenant, order) =
            opts.stringer.order_named(&mut db, opts.order.as_deref().unwrap_or_default())?;
        (vec![one(&mut db, &tenant, order, &opts)?], format!("label-{order}.pdf"), tenant.zone())
    };
    if labels.is_empty() {
        eprintln!("no open orders: no labels to write");
        return Ok(());
    }
    let bytes = label::render(&labels, opts.size, local_date(now_utc(), zone))?;
    let path = opts.output.clone().unwrap_or_else(|| PathBuf::from(default_name));
    if path == Path::new("-") {
        let mut out = super::retry::Stdout;
        out.write_all(&bytes)?;
        out.flush()?;
    } else {
        output::write_new_or_same(&path, &bytes, "label")?;
        eprintln!(
            "wrote {} ({}) to {}",
            output::count(labels.len(), "label"),
            opts.size.as_str(),
            path.display()
        );
    }
    Ok(())
}

fn one(db: &mut Db, tenant: &Tenant, order: OrderId, opts: &Opts) -> Result<Label, Error> {
    db.read(|conn| {
        let found = queue::one(conn, tenant, order)?;
        Ok(Label::of(&found, tenant.zone(), opts.base_url.as_ref().map(url::Url::as_str)))
    })
}
