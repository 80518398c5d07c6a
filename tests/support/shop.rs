//! Shops as the tests set them up, through the binary as a stringer would: stringers with
//! their profiles, accounts of the counter, orders. One builder, so every test's shop is
//! made the same way.

use super::cli::{add_account, ok, PASSWORD};
use super::TestDb;

/// A shop being set up in a test database.
pub struct Shop<'a> {
    db: &'a TestDb,
}

impl<'a> Shop<'a> {
    pub fn new(db: &'a TestDb) -> Shop<'a> {
        Shop { db }
    }

    /// A stringer in Zurich (`stringer add HANDLE --name NAME`), then its profile edited with
    /// `profile` (`stringer edit` flags), if any.
    pub fn stringer(&self, handle: &str, name: &str, profile: &[&str]) -> &Self {
        let added = ok(self.db, &["stringer", "add", handle, "--name", name, "--timezone", "Europe/Zurich"]);
        assert_eq!(added, handle);
        self.profile(handle, profile)
    }

    /// `stringer edit HANDLE FLAGS`, when there are flags.
    pub fn profile(&self, handle: &str, flags: &[&str]) -> &Self {
        if !flags.is_empty() {
            ok(self.db, &[&["stringer", "edit", handle], flags].concat());
        }
        self
    }

    /// An account of the counter (`PASSWORD`) for the stringer.
    pub fn account(&self, username: &str, stringer: &str, role: &str) -> &Self {
        let out = add_account(self.db, &[username, "--stringer", stringer, "--role", role], PASSWORD);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        self
    }

    /// `order add --stringer STRINGER FLAGS`; returns the order's id.
    pub fn order(&self, stringer: &str, flags: &[&str]) -> String {
        ok(self.db, &[&["order", "add", "--stringer", stringer], flags].concat())
    }

    /// An order strung and numbered at `at`; returns its id.
    pub fn minted(&self, stringer: &str, flags: &[&str], at: &str) -> String {
        let order = self.order(stringer, flags);
        ok(self.db, &["mint", "--order", &order, "--at", at]);
        order
    }

    /// Stefan in Zurich, paid into a QR-IBAN (QRR references), with invoices of the given
    /// prices numbered 2026-0001... on 2 March 2026 and later days; returns their order ids.
    pub fn stefan_with_invoices(&self, prices: &[&str]) -> Vec<String> {
        let account = ["--iban", "CH44 3199 9123 0008 8901 2", "--postcode", "8001", "--town", "Zürich"];
        let more = ["--country", "CH", "--payment-days", "20"];
        self.stringer("stefan", "Stefan Muster Bespannungen", &[&account[..], &more[..]].concat());
        self.invoices("stefan", "CHF", prices)
    }

    /// Invoices of the given prices for Roger Federer, numbered on 2 March 2026 and the days
    /// after (past the 28th, an hour each on the 29th); returns their order ids.
    pub fn invoices(&self, stringer: &str, currency: &str, prices: &[&str]) -> Vec<String> {
        prices
            .iter()
            .enumerate()
            .map(|(i, price)| {
                let at = if i < 27 {
                    format!("2026-03-{:02} 10:00", i + 2)
                } else {
                    format!("2026-03-29 {}:00", i - 17)
                };
                let flags = ["--customer", "Roger Federer", "--price", price, "--currency", currency];
                self.minted(stringer, &flags, &at)
            })
            .collect()
    }
}
