//! What each input of the counter's forms takes, in the four languages: said when a value
//! was refused on a page that is not in English.

/// What an input of the counter's forms takes, said when a value was refused on a page in
/// another language than English (the parsers' own words are English).
pub(super) fn expected(field: &str) -> [&'static str; 4] {
    match field {
        "tension" => [
            "The tension takes one value or mains/crosses, 5-40 kg or 10-90 lb: 24, 24/23, 24.5/23.5 kg, 52/50 lb.",
            "Die Spannung ist ein Wert oder Längs-/Quersaiten, 5-40 kg oder 10-90 lb: 24, 24/23, 24.5/23.5 kg, 52/50 lb.",
            "La tension est une valeur ou montants/travers, 5-40 kg ou 10-90 lb : 24, 24/23, 24.5/23.5 kg, 52/50 lb.",
            "La tensione è un valore o verticali/orizzontali, 5-40 kg o 10-90 lb: 24, 24/23, 24.5/23.5 kg, 52/50 lb.",
        ],
        "price" | "amount" => [
            "The amount takes a number like 35 or 35.50, with a point for the decimals.",
            "Der Betrag ist eine Zahl wie 35 oder 35.50, mit Punkt vor den Rappen/Cent.",
            "Le montant est un nombre comme 35 ou 35.50, avec un point pour les décimales.",
            "L'importo è un numero come 35 o 35.50, con il punto per i decimali.",
        ],
        "item" => [
            "Each further line takes a description and a price like 3.00.",
            "Jede weitere Zeile braucht eine Bezeichnung und einen Preis wie 3.00.",
            "Chaque ligne supplémentaire demande une désignation et un prix comme 3.00.",
            "Ogni riga in più chiede una descrizione e un prezzo come 3.00.",
        ],
        "due" => [
            "Ready by takes a date and time to come (DD.MM.YYYY HH:MM), at most a year ahead.",
            "Fertig bis ist ein kommendes Datum mit Uhrzeit (TT.MM.JJJJ HH:MM), höchstens ein Jahr voraus.",
            "Prête pour demande une date et une heure à venir (JJ.MM.AAAA HH:MM), au plus dans un an.",
            "Pronta per chiede una data e un'ora future (GG.MM.AAAA HH:MM), al massimo tra un anno.",
        ],
        "date" => [
            "The date takes DD.MM.YYYY or YYYY-MM-DD.",
            "Das Datum ist TT.MM.JJJJ oder JJJJ-MM-TT.",
            "La date s'écrit JJ.MM.AAAA ou AAAA-MM-JJ.",
            "La data si scrive GG.MM.AAAA o AAAA-MM-GG.",
        ],
        "customer_postcode" | "customer_town" | "customer_country" => [
            "The customer's address takes a postcode, a town and a country of two letters (CH, DE), all three.",
            "Die Adresse der Kundschaft braucht PLZ, Ort und ein Land aus zwei Buchstaben (CH, DE), alle drei.",
            "L'adresse du client demande NPA, localité et un pays de deux lettres (CH, DE), les trois.",
            "L'indirizzo del cliente chiede NPA, località e un paese di due lettere (CH, DE), tutti e tre.",
        ],
        "customer" | "racket" | "string" => [
            "A field holds only spaces: give a value, or leave it empty.",
            "Ein Feld enthält nur Leerzeichen: einen Wert eingeben oder es leer lassen.",
            "Un champ ne contient que des espaces : donnez une valeur, ou laissez-le vide.",
            "Un campo contiene solo spazi: indica un valore, o lascialo vuoto.",
        ],
        "customer_pick" | "customer_id" => [
            "Pick one of the customers offered, or confirm the name as a new customer.",
            "Eine der angebotenen Personen wählen oder den Namen als neue Kundschaft bestätigen.",
            "Choisissez un des clients proposés, ou confirmez le nom comme nouveau client.",
            "Scegli uno dei clienti proposti, o conferma il nome come nuovo cliente.",
        ],
        "racket_id" | "same" => [
            "To repeat a racket's last job, pick the racket.",
            "Um den letzten Auftrag eines Schlägers zu wiederholen, den Schläger wählen.",
            "Pour refaire le dernier travail d'une raquette, choisissez la raquette.",
            "Per ripetere l'ultimo lavoro di una racchetta, scegli la racchetta.",
        ],
        "paid" | "refund" => [
            "Pick one of the ways of paying offered.",
            "Eine der angebotenen Zahlungsarten wählen.",
            "Choisissez un des moyens de paiement proposés.",
            "Scegli uno dei modi di pagamento proposti.",
        ],
        "reason" => [
            "Say why, in a few words.",
            "Kurz sagen, warum.",
            "Dites pourquoi, en quelques mots.",
            "Di' perché, in poche parole.",
        ],
        "vat_id" => [
            "The VAT ID starts with its country's code and has that country's length and check digits: DE123456789, CHE-123.456.789 MWST.",
            "Die USt-IdNr. beginnt mit dem Ländercode und hat dessen Länge und Prüfziffern: DE123456789, CHE-123.456.789 MWST.",
            "Le n° TVA commence par le code du pays et en a la longueur et la clé : FR40303265045, CHE-123.456.789 TVA.",
            "La partita IVA comincia con il codice del paese e ne ha la lunghezza e il controllo: IT01234567897.",
        ],
        "buyer_reference" => [
            "The buyer reference is one line of at most 100 characters.",
            "Die Käuferreferenz ist eine Zeile von höchstens 100 Zeichen.",
            "La référence acheteur tient sur une ligne de 100 caractères au plus.",
            "Il riferimento del committente è una riga di al massimo 100 caratteri.",
        ],
        "tax_code" => [
            "The codice fiscale has 16 letters and digits (a person) or 11 digits (a company), its check character matching.",
            "Der Codice fiscale hat 16 Buchstaben und Ziffern (Person) oder 11 Ziffern (Firma), mit passendem Prüfzeichen.",
            "Le codice fiscale a 16 lettres et chiffres (une personne) ou 11 chiffres (une société), sa clé correspondant.",
            "Il codice fiscale ha 16 lettere e cifre (persona) o 11 cifre (società), con il carattere di controllo corretto.",
        ],
        "sdi_code" => [
            "The SdI code has 7 letters and digits (0000000 for PEC or a consumer).",
            "Der SdI-Code hat 7 Buchstaben und Ziffern (0000000 für PEC oder Privatkundschaft).",
            "Le code SdI a 7 lettres et chiffres (0000000 pour une PEC ou un particulier).",
            "Il codice destinatario ha 7 lettere e cifre (0000000 per PEC o un consumatore).",
        ],
        "pec" => [
            "The PEC takes an e-mail address like studio@pec.it.",
            "Die PEC ist eine E-Mail-Adresse wie studio@pec.it.",
            "La PEC est une adresse e-mail comme studio@pec.it.",
            "La PEC è un indirizzo e-mail come studio@pec.it.",
        ],
        "file" => [
            "Choose a bank file (camt.053 or camt.054).",
            "Eine Bankdatei wählen (camt.053 oder camt.054).",
            "Choisissez un fichier bancaire (camt.053 ou camt.054).",
            "Scegli un file della banca (camt.053 o camt.054).",
        ],
        _ => [
            "A value of the form cannot be taken as it is: nothing was changed.",
            "Ein Wert des Formulars kann so nicht übernommen werden: nichts wurde geändert.",
            "Une valeur du formulaire ne peut pas être prise telle quelle : rien n'a changé.",
            "Un valore del modulo non si può accettare così: nulla è cambiato.",
        ],
    }
}
