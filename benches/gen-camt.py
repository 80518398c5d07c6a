#!/usr/bin/env python3
"""A camt.053.001.08 statement of N transactions for the import benchmark, in batch entries
of 100: most pay invoices 2025-0001... of stringer S exactly (QRR references), every 50th
pays too little, every 50th (offset) has no reference, every 100th is a debit.

    gen-camt.py N FILE STRINGER_ID
"""
import sys

n, path, stringer = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
TABLE = [0, 9, 4, 6, 8, 2, 7, 1, 3, 5]


def qrr(seq):
    body = f"{stringer:08}2025{seq:014}"
    carry = 0
    for digit in body:
        carry = TABLE[(carry + int(digit)) % 10]
    return f"{body}{(10 - carry) % 10}"


def transaction(i):
    """(credit, amount, xml of the remittance information) of transaction i (from 1)."""
    if i % 100 == 0:
        return False, "120.00", "<RmtInf><Ustrd>Stringing machine service</Ustrd></RmtInf>"
    if i % 50 == 25:
        return True, "50.00", "<RmtInf><Ustrd>Thanks for the racket</Ustrd></RmtInf>"
    amount = "30.00" if i % 50 == 0 else "35.50"
    ref = f"<RmtInf><Strd><CdtrRefInf><Ref>{qrr(i)}</Ref></CdtrRefInf></Strd></RmtInf>"
    return True, amount, ref


with open(path, "w") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">')
    out.write("<BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2025-12-31T18:00:00</CreDtTm></GrpHdr>")
    out.write("<Stmt><Id>BENCH-1</Id><Acct><Id><IBAN>CH4431999123000889012</IBAN></Id></Acct>\n")
    for start in range(1, n + 1, 100):
        batch = [(i, *transaction(i)) for i in range(start, min(start + 100, n + 1))]
        out.write(f'<Ntry><Amt Ccy="CHF">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>')
        out.write(f"<BookgDt><Dt>2025-04-{1 + start // 5000:02}</Dt></BookgDt><AcctSvcrRef>E{start}</AcctSvcrRef><NtryDtls>")
        for i, credit, amount, remittance in batch:
            direction = "CRDT" if credit else "DBIT"
            out.write(f"<TxDtls><Refs><AcctSvcrRef>T{i}</AcctSvcrRef></Refs><Amt Ccy=\"CHF\">{amount}</Amt>")
            out.write(f"<CdtDbtInd>{direction}</CdtDbtInd>{remittance}</TxDtls>")
        out.write("</NtryDtls></Ntry>\n")
    out.write("</Stmt></BkToCstmrStmt></Document>\n")
