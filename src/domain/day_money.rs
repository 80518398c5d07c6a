//! A day's money, summed one way for every door and record (SPEC 19, 23): `takings`, the
//! counter's `/takings`, the day's closure and the auditor's payments. A payment counts what
//! was owed when it was paid (the total less what credit notes took back before) and the
//! reminder fee a bank payment included; money paid back is a line of its own, negative; the
//! shop's certified till's payments are listed apart and never in the program's totals.

use super::{Currency, PaymentMethod, VatRate};
use chrono::NaiveDateTime;
use std::collections::BTreeMap;
use std::fmt;

/// What a line of money is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoneyLine {
    /// Received, by a method (None: entered without its method).
    Paid(Option<PaymentMethod>),
    /// Paid back with a credit note, by a method.
    Refunded(PaymentMethod),
}

impl MoneyLine {
    /// The way of paying (None: a payment entered without its method).
    pub fn method(self) -> Option<PaymentMethod> {
        match self {
            MoneyLine::Paid(method) => method,
            MoneyLine::Refunded(method) => Some(method),
        }
    }

    /// Taken or paid back through the shop's own certified till: that till counts it.
    pub fn through_till(self) -> bool {
        self.method() == Some(PaymentMethod::Till)
    }
}

/// `cash`, `unrecorded`, `cash refund`.
impl fmt::Display for MoneyLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoneyLine::Paid(Some(method)) => write!(f, "{method}"),
            MoneyLine::Paid(None) => f.write_str("unrecorded"),
            MoneyLine::Refunded(method) => write!(f, "{method} refund"),
        }
    }
}

/// One payment received or money paid back, in minor units (money paid back negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Movement {
    pub line: MoneyLine,
    pub rate: Option<VatRate>,
    pub amount: i64,
    /// The VAT the amount includes.
    pub vat: i64,
}

impl Movement {
    /// A payment of an order: `owed` (its total less what credit notes took back before it
    /// was paid) and the reminder `fee` a bank payment included, which is outside the VAT
    /// base.
    pub fn payment(method: Option<PaymentMethod>, rate: Option<VatRate>, owed: i64, fee: i64) -> Movement {
        Movement {
            line: MoneyLine::Paid(method),
            rate,
            amount: owed + fee,
            vat: rate.map_or(0, |rate| rate.included_in(owed)),
        }
    }

    /// The money a credit note paid back: its amount and the VAT it took back.
    pub fn refund(method: PaymentMethod, rate: Option<VatRate>, amount: i64, vat: i64) -> Movement {
        Movement { line: MoneyLine::Refunded(method), rate, amount: -amount, vat: -vat }
    }
}

/// What an order of `total` owed when it was paid at `paid_at`: the total less what the
/// credit notes issued before (`credits`: when, how much) took back.
pub fn owed_when_paid(total: i64, credits: &[(NaiveDateTime, i64)], paid_at: NaiveDateTime) -> i64 {
    total
        - credits.iter().filter(|(issued_at, _)| *issued_at <= paid_at).map(|(_, amount)| amount).sum::<i64>()
}

/// Payments of one line, summed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Sums {
    pub count: i64,
    pub amount: i64,
    pub vat: i64,
}

impl Sums {
    fn add(&mut self, other: Sums) {
        self.count += other.count;
        self.amount += other.amount;
        self.vat += other.vat;
    }
}

/// A day's (or a period's) money: per currency, line and VAT rate.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DayMoney {
    pub lines: BTreeMap<(Currency, MoneyLine, Option<VatRate>), Sums>,
}

impl DayMoney {
    /// Counts `movement` in `currency`; `sign` -1 takes a payment back out (one removed).
    pub fn add(&mut self, currency: &Currency, movement: Movement, sign: i64) {
        let sums = Sums { count: sign, amount: sign * movement.amount, vat: sign * movement.vat };
        self.lines.entry((currency.clone(), movement.line, movement.rate)).or_default().add(sums);
    }

    /// The lines in the order people read them: by currency, then by what the line says
    /// (`card`, `cash`, `cash refund`, ...), then by rate.
    pub fn in_order(&self) -> Vec<(&Currency, MoneyLine, Option<VatRate>, Sums)> {
        let mut lines: Vec<_> =
            self.lines.iter().map(|((currency, line, rate), sums)| (currency, *line, *rate, *sums)).collect();
        lines.sort_by_key(|(currency, line, rate, _)| (currency.as_str(), line.to_string(), *rate));
        lines
    }

    /// Per currency, what the program itself took: every line but the certified till's.
    pub fn totals(&self) -> BTreeMap<Currency, Sums> {
        let mut totals: BTreeMap<Currency, Sums> = BTreeMap::new();
        for ((currency, line, _), sums) in &self.lines {
            if !line.through_till() {
                totals.entry(currency.clone()).or_default().add(*sums);
            }
        }
        totals
    }

    /// Per currency and way of paying, payments and refunds together: (currency, method,
    /// through the certified till) and their sums.
    pub fn per_method(&self) -> BTreeMap<(Currency, Option<PaymentMethod>), Sums> {
        let mut net: BTreeMap<(Currency, Option<PaymentMethod>), Sums> = BTreeMap::new();
        for ((currency, line, _), sums) in &self.lines {
            net.entry((currency.clone(), line.method())).or_default().add(*sums);
        }
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentMethod::*;

    #[test]
    fn a_day_counts_what_was_owed_and_the_fee_and_keeps_the_till_apart() {
        let chf = Currency::chf();
        let rate = Some(VatRate(810));
        let mut day = DayMoney::default();
        // 90.00 credited by 30.00, then paid by card: 60.00, the VAT of 60.00.
        day.add(&chf, Movement::payment(Some(Card), rate, 6000, 0), 1);
        // 35.00 and a reminder fee of 5.00 by transfer: the fee is no VAT base.
        day.add(&chf, Movement::payment(Some(Transfer), rate, 3500, 500), 1);
        day.add(&chf, Movement::refund(Cash, rate, 1000, 75), 1);
        day.add(&chf, Movement::payment(Some(Till), rate, 2000, 0), 1);
        let line = |line, rate| day.lines[&(chf.clone(), line, rate)];
        assert_eq!(line(MoneyLine::Paid(Some(Card)), rate), Sums { count: 1, amount: 6000, vat: 450 });
        assert_eq!(line(MoneyLine::Paid(Some(Transfer)), rate), Sums { count: 1, amount: 4000, vat: 262 });
        assert_eq!(line(MoneyLine::Refunded(Cash), rate), Sums { count: 1, amount: -1000, vat: -75 });
        assert_eq!(day.totals()[&chf], Sums { count: 3, amount: 9000, vat: 637 }, "the till's apart");
        assert_eq!(MoneyLine::Refunded(Cash).to_string(), "cash refund");
        // A payment removed takes its count and amount back out.
        day.add(&chf, Movement::payment(Some(Card), rate, 6000, 0), -1);
        assert_eq!(day.per_method()[&(chf, Some(Card))], Sums::default());
    }
}
