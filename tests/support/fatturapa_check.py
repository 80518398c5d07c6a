"""Reads a FatturaPA file back with an independent implementation, PyPI's a38 (a model of the
tracciato 1.2 with its validation rules), and prints what it found as JSON:

    python fatturapa_check.py FILE.xml

  {"errors": [...], "warnings": [...], "version": "FPR12", "numbers": {...}}

Exits 1 naming the problem when a38 cannot read the file at all.
"""

import json
import sys
import xml.etree.ElementTree as ET

from a38 import fattura
from a38.validation import Validation


def text(value):
    return None if value is None else str(value)


def main():
    path = sys.argv[1]
    try:
        invoice = fattura.auto_from_etree(ET.parse(path).getroot())
    except Exception as error:
        sys.exit(f"{path}: a38 cannot read it: {error}")
    validation = Validation()
    invoice.validate(validation)
    header = invoice.fattura_elettronica_header
    body = invoice.fattura_elettronica_body[0]
    general = body.dati_generali.dati_generali_documento
    goods = body.dati_beni_servizi
    buyer = header.cessionario_committente.dati_anagrafici
    result = {
        "errors": [str(e) for e in validation.errors],
        "warnings": [str(w) for w in validation.warnings],
        "version": invoice.get_versione(),
        "numbers": {
            "progressivo": header.dati_trasmissione.progressivo_invio,
            "recipient": header.dati_trasmissione.codice_destinatario,
            "pec": header.dati_trasmissione.pec_destinatario,
            "regime": header.cedente_prestatore.dati_anagrafici.regime_fiscale,
            "seller_vat": header.cedente_prestatore.dati_anagrafici.id_fiscale_iva.id_codice,
            "buyer_vat": buyer.id_fiscale_iva.id_codice if buyer.id_fiscale_iva.has_value() else None,
            "buyer_tax_code": buyer.codice_fiscale,
            "type": general.tipo_documento,
            "number": general.numero,
            "date": text(general.data),
            "total": text(general.importo_totale_documento),
            "stamp": text(general.dati_bollo.importo_bollo) if general.dati_bollo.has_value() else None,
            "linked": [d.id_documento for d in body.dati_generali.dati_fatture_collegate],
            "lines": [
                {"text": line.descrizione, "total": text(line.prezzo_totale), "rate": text(line.aliquota_iva), "nature": line.natura}
                for line in goods.dettaglio_linee
            ],
            "summary": [
                {"rate": text(s.aliquota_iva), "nature": s.natura, "taxable": text(s.imponibile_importo), "tax": text(s.imposta), "law": s.riferimento_normativo}
                for s in goods.dati_riepilogo
            ],
            "payment": [
                {"iban": d.iban, "amount": text(d.importo_pagamento), "due": text(d.data_scadenza_pagamento)}
                for p in body.dati_pagamento
                for d in p.dettaglio_pagamento
            ],
        },
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
