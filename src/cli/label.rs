//! `receipts label`: the racket labels of an order or of the queue, as a PDF.

use super::{output, Context, StringerOpt};
use crate::db::Access;
use crate::ops::label::{self, Labels, Which};
use crate::receipt::label::Size;
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
    #[arg(long, default_value = "62x100mm", value_parser = super::one_of::<Size>(super::names::<Size>()))]
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
    let (tenant, which) = if opts.queue {
        (opts.stringer.whose().required(&mut db)?, Which::Queue)
    } else {
        let (tenant, order) =
            opts.stringer.whose().order_named(&mut db, opts.order.as_deref().unwrap_or_default())?;
        (tenant, Which::Order(order))
    };
    let base_url = opts.base_url.as_ref().map(url::Url::as_str);
    let Labels { pdf, count, file_name } = label::labels(&mut db, &tenant, which, opts.size, base_url)?;
    let Some(bytes) = pdf else {
        eprintln!("no open orders: no labels to write");
        return Ok(());
    };
    let path = opts.output.clone().unwrap_or_else(|| PathBuf::from(file_name));
    if path == Path::new("-") {
        let mut out = super::output::Stdout;
        out.write_all(&bytes)?;
        out.flush()?;
    } else {
        crate::files::write_new(&path, &bytes, "label")?;
        eprintln!("wrote {} ({}) to {}", output::count(count, "label"), opts.size.as_str(), path.display());
    }
    Ok(())
}
