"""Cross-checks a QR-bill payload with PyPI's qrbill, an implementation independent of
`receipts`: it validates the IBAN, the reference type against the IBAN kind, the reference's
check digits, the amount and the field lengths, and writes the payload it would make of the
same fields, which must be the one it was given.

    python qrbill_check.py < payload
"""
import sys

from qrbill import QRBill

lines = sys.stdin.read().split("\n")
assert lines[0:3] == ["SPC", "0200", "1"], lines[0:3]


def address(at):
    if lines[at] != "S":
        return None
    keys = ["name", "street", "house_num", "pcode", "city", "country"]
    return dict(zip(keys, lines[at + 1 : at + 7]))


bill = QRBill(
    account=lines[3],
    creditor=address(4),
    amount=lines[18] or None,
    currency=lines[19],
    debtor=address(20),
    reference_number=lines[28] or None,
    additional_information=lines[29],
)
sys.stdout.write(bill.qr_data().replace("\r\n", "\n").rstrip("\n"))
