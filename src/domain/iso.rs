//! ISO code lists (from Debian's iso-codes 4.15): what a country or a currency code may be.

/// ISO 3166-1 alpha-2 country codes.
const COUNTRIES: &str = "\
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR \
    BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ \
    EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW \
    GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY \
    KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV \
    MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY \
    QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG \
    TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM \
    ZW";

/// ISO 4217 currency codes.
const CURRENCIES: &str = "\
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN \
    BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP \
    ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR \
    ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD \
    MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR \
    PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL \
    THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF \
    XAG XAU XBA XBB XBC XBD XCD XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWL";

/// A country code as ISO 3166 assigns it (`CH`, `DE`), in capitals.
pub fn check_country(text: &str) -> Result<String, String> {
    let code = text.trim().to_ascii_uppercase();
    if is_listed(COUNTRIES, &code, 2) {
        Ok(code)
    } else {
        Err(format!("\"{text}\" is not a country code (ISO 3166, two letters like CH or DE)"))
    }
}

/// Whether ISO 4217 assigns this currency code.
pub fn is_currency(code: &str) -> bool {
    is_listed(CURRENCIES, code, 3)
}

/// Whether `code` is one of the `width`-letter codes of `list`: in a list of capitals
/// separated by spaces, capitals without a space can only be one whole code.
fn is_listed(list: &str, code: &str, width: usize) -> bool {
    code.len() == width && code.bytes().all(|b| b.is_ascii_uppercase()) && list.contains(code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_the_assigned_ones() {
        assert_eq!(super::check_country("ch"), Ok("CH".into()));
        assert!(super::check_country("XX").is_err() && super::check_country("CHE").is_err());
        assert!(super::is_currency("CHF") && super::is_currency("EUR") && !super::is_currency("ABC"));
        // Not assigned, not in capitals, too long.
        assert!(!super::is_currency("DAF") && !super::is_currency("chf") && !super::is_currency("CHFX"));
        assert_eq!(super::COUNTRIES.split_whitespace().count(), 249);
    }
}
