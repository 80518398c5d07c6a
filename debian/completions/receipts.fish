# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_receipts_global_optspecs
    string join \n database-url= lock-timeout= retry-for= config= h/help V/version
end

function __fish_receipts_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_receipts_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_receipts_using_subcommand
    set -l cmd (__fish_receipts_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c receipts -n "__fish_receipts_needs_command" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_needs_command" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_needs_command" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_needs_command" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_needs_command" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_needs_command" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "setup" -d 'The shop\'s first run: the stringer, its profile and the owner\'s account, asked at the terminal or given as flags; --link prints the browser\'s one-time setup address'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "stringer" -d 'Add, list, show and edit stringers'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "order" -d 'Add, list, show and edit orders; unstring, restring or delete one'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "customer" -d 'The customer register: add, edit, find, show, merge and forget customers'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "racket" -d 'Customers\' rackets: add, edit, list, and show one with its jobs'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "queue" -d 'The day\'s work: open orders by promised time (the overdue first), then the rackets waiting for pickup'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "label" -d 'A PDF label for the racket (62 x 100 mm or 4 x 6 in) with a QR code of the order; or one per open order'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "mint" -d 'Mark an order strung and give it the next receipt number (prints the number)'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "void" -d 'Void a numbered order, or document a number whose order was lost: the number stays taken, with the reason on record'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "credit" -d 'Take back a document the customer holds, in full or in part: a credit note numbered C-YYYY-NNNN in its own series (prints the number)'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "receipt" -d 'Render the receipt of a numbered order (text or PDF/A), or every receipt of a year'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "einvoice" -d 'An Italian stringer\'s document as the FatturaPA file for SdI (IT{partita IVA}_{progressivo}.xml), or every document of a year'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "send" -d 'E-mail the document of a numbered order (the PDF attached) over the stringer\'s mail server, once unless asked again; or every document not sent yet'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "remind" -d 'Chase an unpaid invoice: its next reminder (levels 1-3, a PDF with the payment part for the open amount), or every reminder that is due; once per invoice and level'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "strings" -d 'String stock: record reels bought, and see what is left'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "notify" -d 'Tell the customer by e-mail that the racket is ready, once unless asked again; or every customer not told yet'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "payments" -d 'Payments from the bank: mark invoices paid from its camt files'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "migrate-v1" -d 'Import an export of the V1 system, numbering its strung orders per stringer and year'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "resync-counters" -d 'After a restore: set each counter to the highest number in use (never lower unless asked)'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "audit" -d 'Check every stringer\'s numbering: 1..N, no duplicates, voids explained, gaps and collisions named (exit 1 on any problem)'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "close" -d 'Close the business day: the events since the last closure summed per series, method, currency and VAT rate, added to perpetual grand totals, signed, and chained'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "key" -d 'The signing key of the day\'s closures: init, rotate'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "export" -d 'The accountant\'s ledger of a year: every issued number, voids included (CSV or JSON), with totals per stringer and currency on stderr'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "journal" -d 'The journal: every mint, void, recount and import, and every change, e-mail and payment of a numbered order, oldest first'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "takings" -d 'The day\'s payments per method and currency (the evening count of the till), VAT per rate beside them'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "vat-report" -d 'What the VAT return asks for: receipts, gross, VAT and net per stringer, currency and rate for a year, quarter, half or month'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "backup" -d 'Copy the SQLite database to a new file while it is in use, and verify the copy'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "serve" -d 'The counter in the browser: pages for the day\'s work on this database'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "account" -d 'Accounts of the counter in the browser: add, list, new password, disable'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "db" -d 'Manage the database schema'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "completions" -d 'Print a completion script for a shell (bash, zsh, fish, ...)'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "man" -d 'Print the manual page (roff) of the program or of one of its commands, or write them all'
complete -c receipts -n "__fish_receipts_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l language -d 'The language of the questions and of the documents (en, de, fr, it) [default: LANG\'s]' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l handle -d 'The stringer\'s short name, used with --stringer' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l name -d 'The shop\'s name, as documents print it' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l country -d 'The country (ISO 3166, e.g. CH)' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l timezone -d 'The IANA time zone [default: the machine\'s]' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l currency -d 'The currency (ISO 4217) [default: the country\'s]' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l address -d 'The address: street and number, postcode and town ("Bahnhofstrasse 1, 8001 Zürich")' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l email -d 'The shop\'s e-mail' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l vat-number -d 'The VAT number, for a VAT-registered shop' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l tax-number -d 'The national tax number' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l iban -d 'The IBAN invoices are paid to' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l owner -d 'The owner\'s account at the counter' -r
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l link -d 'Print a new one-time address of the setup in the browser (the one before stops working)'
complete -c receipts -n "__fish_receipts_using_subcommand setup" -l password-stdin -d 'Read the owner\'s password as one line from standard input'
complete -c receipts -n "__fish_receipts_using_subcommand setup" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand setup" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -f -a "add" -d 'Add a stringer (prints the handle)'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -f -a "list" -d 'List the stringers'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -f -a "show" -d 'Show a stringer\'s profile and, per year, the counter and the next number'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -f -a "edit" -d 'Change a stringer\'s profile; a new time zone applies to future mints, and is refused if it would move an issued receipt into another year'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and not __fish_seen_subcommand_from add list show edit help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l name -d 'Full name [default: the handle]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -l timezone -d 'IANA time zone that decides which year a receipt belongs to [default: the TZ environment variable, else this machine\'s zone, else UTC]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -l format -d 'A table for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -l format -d 'The profile and counters for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l name -d 'Full (business) name' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l timezone -d 'IANA time zone for future mints' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l address -d 'Postal address, printed on receipts: give it once per line (--address "Bahnhofstrasse 1" --address "8001 Zürich"), or in one value with \\n between the lines' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l email -d 'Contact e-mail, printed on receipts' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l phone -d 'Contact phone, printed on receipts' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l vat-number -d 'VAT number (a Swiss UID like CHE-123.456.788 MWST, or an EU VAT number like DE123456789), only for a VAT-registered business: receipts then show it and the VAT' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l language -d 'Language of receipts' -r -f -a "en\t''
de\t''
fr\t''
it\t''"
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l tax-number -d 'National tax number (e.g. a German Steuernummer), printed when there is no VAT number' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l tax-code -d 'Italy: the stringer\'s codice fiscale, its tax number (checked by its check character)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l regime -d 'Italy: the tax regime of FatturaPA, RF01 (ordinary, with VAT) or RF19 (forfettario: no VAT, the same as --small-business yes)' -r -f -a "RF01\t'Ordinary: VAT charged'
RF19\t'Forfettario: no VAT (art. 1, commi 54-89, L. 190/2014)'"
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l siret -d 'A French business\'s SIRET (14 digits, spaces allowed), printed as SIRET' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l small-business -d 'Exempt under the country\'s small-business rule (yes or no): documents then carry the country\'s note (Germany: § 19 UStG) and no VAT' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l vat-rate -d 'The VAT rate in percent (e.g. 8.1), in force from --vat-from on' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l vat-from -d 'The day the --vat-rate applies from [default: today]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l currency -d 'The currency of new orders (ISO 4217, e.g. EUR) [default: CHF]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l iban -d 'The account invoices are paid to (spaces allowed; empty to remove): a Swiss or Liechtenstein IBAN puts a QR-bill on invoices, another an EPC QR code on EUR invoices' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l bic -d 'The bank\'s BIC, for the EPC QR code (optional)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l account-holder -d 'The name the bank holds the account in, on the QR-bill and the EPC code, when it is not the business name (empty to go back to it)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l payment-days -d 'Days until an invoice is due [default: 30]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l street -d 'Street of the business\'s structured address (printed on documents and QR-bills)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l house-number -d 'House number of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l postcode -d 'Postcode of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l town -d 'Town of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l country -d 'Country of the structured address (ISO 3166, e.g. CH): it decides how documents write amounts and name the tax' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l turnaround -d 'Hours from drop-off to the time a racket is promised, unless an order says (`order add --due`) [default: 24]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l pickup-note -d 'What a ready notice says of pickup: opening hours, where (empty to remove)' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l einvoice -d 'Which documents are e-invoices (a PDF with its Factur-X XML) unless a command says: every one, none, or those of buyers with a VAT id [default: business]' -r -f -a "yes\t'Every document that can be one'
no\t'None: plain PDFs'
business\t'Those of buyers with a VAT id'"
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l remind-after -d 'Days after an invoice\'s due date that its first reminder is due (`remind --due`) [default: 7]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l remind-every -d 'Days after a reminder that the next level is due [default: 14]' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l remind-from -d 'Never remind invoices numbered before this day (those chased by hand); empty to remove' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -l reminder-fee -d 'The fee a reminder level asks besides the open amount, e.g. 2=5.00 (LEVEL=, empty, for none) [default: none]; refused where the country\'s law allows none' -r
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a stringer (prints the handle)'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the stringers'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a stringer\'s profile and, per year, the counter and the next number'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a stringer\'s profile; a new time zone applies to future mints, and is refused if it would move an issued receipt into another year'
complete -c receipts -n "__fish_receipts_using_subcommand stringer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "add" -d 'Take an order (prints its id)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "list" -d 'List orders'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "show" -d 'Show one order, by its id or its receipt number (YYYY-NNNN, with --stringer)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "edit" -d 'Change an order\'s details; its receipt number stays as it is'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "unstring" -d 'Clear the strung time; the order keeps its receipt number'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "restring" -d 'Copy a numbered order into a new one, to be strung and numbered anew (prints the new id)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "delete" -d 'Delete an order taken by mistake; one with a receipt number can only be voided'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "pickup" -d 'The customer took the strung racket, and with --paid paid for it there and then'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "pay" -d 'Take a payment of a numbered invoice: all that is left to pay, or with --amount a part'
complete -c receipts -n "__fish_receipts_using_subcommand order; and not __fish_seen_subcommand_from add list show edit unstring restring delete pickup pay help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l kind -d 'A client\'s racket or the stringer\'s own' -r -f -a "client\t''
self\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer -d 'The customer\'s name, printed on the receipt' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l racket -d 'The racket, e.g. "Babolat Pure Aero"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l string -d 'The string used, e.g. "RPM Blast 1.25"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l tension -d 'The tension, e.g. "24/23 kg"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l price -d 'The price, e.g. 35.00' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l currency -d 'Currency of the price (ISO 4217) [default for a new order: the stringer\'s, see `stringer edit --currency`]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-note -d 'A note for the customer, printed on the receipt' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-address -d 'The customer\'s address, printed under the name: once per line, or one value with \\n between the lines' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-street -d 'The customer\'s street, for the QR-bill (with --customer-postcode, --customer-town and --customer-country)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-house-number -d 'The customer\'s house number, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-postcode -d 'The customer\'s postcode, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-town -d 'The customer\'s town, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-country -d 'The customer\'s country (ISO 3166, e.g. CH), for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l email -d 'The customer\'s e-mail address, where `receipts send` delivers documents' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l due -d 'When the racket is promised: a local time, or a span after the order was taken (+24h, +2d) [default for a new order: the stringer\'s turnaround, see `stringer edit --turnaround`]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l item -d 'A line after the stringing line, printed with its price: "Overgrip=3.00" (repeat for more; on `order edit` the items given replace all of them)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l string-length -d 'The string it takes in metres [default: 12 for tennis, 10 for badminton and squash]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l own-string -d 'The customer brought the string (yes or no): none comes from stock' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l cross-string -d 'A hybrid\'s cross string (--string is then the mains): half the length from each' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l ordered-at -d 'When the order was taken [default: now]; local time unless an offset is given' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l customer-id -d 'The customer of the register it is for: their name, e-mail and address fill the order [default: the one customer called --customer, a new one when there is none]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l racket-id -d 'The racket of the register: its model (and tag) become the order\'s racket [default: the customer\'s racket called --racket, a new one when there is none]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l racket-tag -d 'The racket of the register by the shop\'s tag on its frame' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -l same -d 'The same as last time: string, tension and price from the racket\'s last strung order, where not given'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l year -d 'Only orders numbered in this year, in number order' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l status -d 'Only orders in this state' -r -f -a "open\t'taken, not strung: no number yet'
strung\t'strung and numbered, not void'
waiting\t'a client\'s racket strung and not picked up yet'
paid\t'paid, not void'
unpaid\t'numbered, not paid, not void, not credited in full: money still to come'
overdue\t'unpaid past the invoice\'s due date (issue date and payment days)'
void\t'void'
credited\t'taken back in full by credit notes: nothing is owed'"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l customer -d 'Only customers whose name contains this (ignoring case)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l since -d 'Only orders of this day or later (strung, else taken; the stringer\'s local day)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l until -d 'Only orders of this day or earlier' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l customer-id -d 'Only orders for this customer of the register' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l racket-id -d 'Only orders for this racket of the register' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l string -d 'Only orders whose string contains this (case and accents ignored)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l limit -d 'At most this many orders' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -l newest -d 'Newest first'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -l format -d 'The order for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer -d 'The customer\'s name, printed on the receipt' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l racket -d 'The racket, e.g. "Babolat Pure Aero"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l string -d 'The string used, e.g. "RPM Blast 1.25"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l tension -d 'The tension, e.g. "24/23 kg"' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l price -d 'The price, e.g. 35.00' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l currency -d 'Currency of the price (ISO 4217) [default for a new order: the stringer\'s, see `stringer edit --currency`]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-note -d 'A note for the customer, printed on the receipt' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-address -d 'The customer\'s address, printed under the name: once per line, or one value with \\n between the lines' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-street -d 'The customer\'s street, for the QR-bill (with --customer-postcode, --customer-town and --customer-country)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-house-number -d 'The customer\'s house number, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-postcode -d 'The customer\'s postcode, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-town -d 'The customer\'s town, for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l customer-country -d 'The customer\'s country (ISO 3166, e.g. CH), for the QR-bill' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l email -d 'The customer\'s e-mail address, where `receipts send` delivers documents' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l due -d 'When the racket is promised: a local time, or a span after the order was taken (+24h, +2d) [default for a new order: the stringer\'s turnaround, see `stringer edit --turnaround`]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l item -d 'A line after the stringing line, printed with its price: "Overgrip=3.00" (repeat for more; on `order edit` the items given replace all of them)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l string-length -d 'The string it takes in metres [default: 12 for tennis, 10 for badminton and squash]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l own-string -d 'The customer brought the string (yes or no): none comes from stock' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l cross-string -d 'A hybrid\'s cross string (--string is then the mains): half the length from each' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l returned-at -d 'When the racket went back to its owner' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l paid-at -d 'When the order was paid; `none` clears a payment recorded by mistake (with --reason)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l method -d 'How it was paid, with --paid-at (`till`: through the shop\'s own certified till)' -r -f -a "cash\t''
card\t''
twint\t''
transfer\t''
other\t''
till\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l reason -d 'Why, for the journal (needed to clear a payment)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l backdate -d 'Accept a --paid-at or --returned-at before last year (an old payment entered late)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -l no-items -d 'Remove the items'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from unstring" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from restring" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l paid -d 'Paid on the spot, and how (`till`: taken through the shop\'s own certified till)' -r -f -a "cash\t''
card\t''
twint\t''
transfer\t''
other\t''
till\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l at -d 'When it was picked up [default: now]; local time unless an offset is given' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -l backdate -d 'Accept an --at before last year (a pickup entered late)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pickup" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l method -d 'How it was paid (`till`: taken through the shop\'s own certified till)' -r -f -a "cash\t''
card\t''
twint\t''
transfer\t''
other\t''
till\t''"
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l amount -d 'A part of what is left to pay [default: all of it]; the invoice stays open for the rest' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l at -d 'When it was paid [default: now]; local time unless an offset is given' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -l backdate -d 'Accept an --at before last year (a payment entered late)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from pay" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "add" -d 'Take an order (prints its id)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "list" -d 'List orders'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one order, by its id or its receipt number (YYYY-NNNN, with --stringer)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change an order\'s details; its receipt number stays as it is'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "unstring" -d 'Clear the strung time; the order keeps its receipt number'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "restring" -d 'Copy a numbered order into a new one, to be strung and numbered anew (prints the new id)'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an order taken by mistake; one with a receipt number can only be voided'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "pickup" -d 'The customer took the strung racket, and with --paid paid for it there and then'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "pay" -d 'Take a payment of a numbered invoice: all that is left to pay, or with --amount a part'
complete -c receipts -n "__fish_receipts_using_subcommand order; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "add" -d 'Add a customer to the register (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "edit" -d 'Change a customer\'s name, contact, address or notes; issued documents keep theirs'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "list" -d 'The register, or the customers found by part of their name, e-mail or phone number'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "show" -d 'A customer: contact, rackets, and their orders newest first'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "merge" -d 'Move the orders and rackets of a customer entered twice to the other, and remove it'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "forget" -d 'Forget a customer (privacy law): erase what issued documents need not keep'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and not __fish_seen_subcommand_from add edit list show merge forget help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l email -d 'E-mail address, where documents and notices go' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l phone -d 'Phone number, as the customer gives it (search reads its digits)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l street -d 'Street of the structured address (a QR-bill\'s "Payable by")' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l house-number -d 'House number of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l postcode -d 'Postcode of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l town -d 'Town of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l country -d 'Country of the structured address (ISO 3166, e.g. CH)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l address -d 'An address line, printed under the name (repeat for more lines, or \\n between them)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l vat-id -d 'The customer\'s VAT identifier, for invoices to a business (e.g. DE123456789)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l buyer-reference -d 'The reference the customer\'s bookkeeping routes invoices by (a German public body\'s Leitweg-ID)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l tax-code -d 'Italy: the customer\'s codice fiscale' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l sdi-code -d 'Italy: the SdI recipient code (7 characters; 0000000 for PEC or a consumer)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l pec -d 'Italy: the certified e-mail address (PEC) SdI delivers to' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l name -d 'The customer\'s name' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l email -d 'E-mail address, where documents and notices go' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l phone -d 'Phone number, as the customer gives it (search reads its digits)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l street -d 'Street of the structured address (a QR-bill\'s "Payable by")' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l house-number -d 'House number of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l postcode -d 'Postcode of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l town -d 'Town of the structured address' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l country -d 'Country of the structured address (ISO 3166, e.g. CH)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l address -d 'An address line, printed under the name (repeat for more lines, or \\n between them)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l vat-id -d 'The customer\'s VAT identifier, for invoices to a business (e.g. DE123456789)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l buyer-reference -d 'The reference the customer\'s bookkeeping routes invoices by (a German public body\'s Leitweg-ID)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l tax-code -d 'Italy: the customer\'s codice fiscale' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l sdi-code -d 'Italy: the SdI recipient code (7 characters; 0000000 for PEC or a consumer)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l pec -d 'Italy: the certified e-mail address (PEC) SdI delivers to' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l search -d 'Part of the name or e-mail (case and accents ignored), or of the phone number\'s digits' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -l format -d 'The customer for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l into -d 'The customer that stays' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from merge" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l reason -d 'Why, for the journal (e.g. "asked to be forgotten on 2026-11-25")' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from forget" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a customer to the register (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a customer\'s name, contact, address or notes; issued documents keep theirs'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "list" -d 'The register, or the customers found by part of their name, e-mail or phone number'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "show" -d 'A customer: contact, rackets, and their orders newest first'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Move the orders and rackets of a customer entered twice to the other, and remove it'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "forget" -d 'Forget a customer (privacy law): erase what issued documents need not keep'
complete -c receipts -n "__fish_receipts_using_subcommand customer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -f -a "add" -d 'Add a racket to a customer (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -f -a "edit" -d 'Change a racket\'s model, sport, pattern, tag or notes'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -f -a "list" -d 'A customer\'s rackets'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -f -a "show" -d 'A racket, by its id or its tag, and its jobs newest first'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and not __fish_seen_subcommand_from add edit list show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l customer -d 'Whose racket it is' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l model -d 'E.g. "Babolat Pure Aero 2023"' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l sport -d 'What it is played: how much string it takes when an order does not say' -r -f -a "tennis\t''
badminton\t''
squash\t''"
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l pattern -d 'The string pattern, e.g. 16x19' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l tag -d 'The shop\'s own mark on the frame, unique among the stringer\'s rackets' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l model -d 'E.g. "Babolat Pure Aero 2023"' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l sport -d 'What it is played: how much string it takes when an order does not say' -r -f -a "tennis\t''
badminton\t''
squash\t''"
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l pattern -d 'The string pattern, e.g. 16x19' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l tag -d 'The shop\'s own mark on the frame, unique among the stringer\'s rackets' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l notes -d 'Internal notes, never printed' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from edit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l customer -d 'Whose rackets' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -l format -d 'The racket for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a racket to a customer (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a racket\'s model, sport, pattern, tag or notes'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from help" -f -a "list" -d 'A customer\'s rackets'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from help" -f -a "show" -d 'A racket, by its id or its tag, and its jobs newest first'
complete -c receipts -n "__fish_receipts_using_subcommand racket; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand queue" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand queue" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand queue" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand label" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand label" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand label" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand label" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand label" -s o -l output -d 'Write the PDF to this file (- for stdout) [default: label-ORDER.pdf, or with --queue labels-DATE.pdf]; never over a different file' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand label" -l size -d 'The label\'s size' -r -f -a "62x100mm\t''
4x6in\t''"
complete -c receipts -n "__fish_receipts_using_subcommand label" -l base-url -d 'Where the web counter answers (e.g. https://shop.example): the QR code then opens the order\'s page; without it the code holds `receipts:order:ID`' -r
complete -c receipts -n "__fish_receipts_using_subcommand label" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand label" -l queue -d 'One label per open order of the queue instead'
complete -c receipts -n "__fish_receipts_using_subcommand label" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand label" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l order -d 'The order that was strung' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l at -d 'When it was strung [default: now]; local time in the stringer\'s zone unless an offset is given: 2026-11-21 14:30, 2026-11-21T14:30:00+01:00, 21.11.2026 14:30. Never in the future; this year or last year unless --backdate' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l backdate -d 'Accept an --at before last year, or before the last number issued this year (a late entry of old work, journaled as such)'
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l without-address -d 'Number a VAT-registered stringer\'s invoice above the small-amount limit (CHF 400, EUR 250) without the customer\'s address (the journal records it)'
complete -c receipts -n "__fish_receipts_using_subcommand mint" -l notify -d 'Then tell the customer by e-mail that the racket is ready (as `receipts notify`), when the order has an e-mail address'
complete -c receipts -n "__fish_receipts_using_subcommand mint" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand mint" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand void" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand void" -l order -d 'The numbered order to void' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l number -d 'Numbers that were issued but whose orders are lost (e.g. in a restore): one number or a range YYYY-NNNN..YYYY-MMMM of one year, or credit note numbers C-YYYY-NNNN..C-YYYY-MMMM. Numbers above the counter only as a range that starts right after it. Needs --stringer' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l reason -d 'Why, for the audit: the number stays taken and this reason explains it' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand void" -l format -d 'With --number: what was recorded as JSON on stdout, for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand void" -l dry-run -d 'With --number: show what would be recorded; write nothing'
complete -c receipts -n "__fish_receipts_using_subcommand void" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand void" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l reason -d 'Why, printed on the credit note and kept in the journal' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l amount -d 'Take back only this much (e.g. 12.50) [default: all that is not credited yet]. Never more than is left' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l refund -d 'How the money went back: required for a paid order (none: it was kept); an unpaid invoice is simply no longer owed [default: none]' -r -f -a "cash\t''
card\t''
twint\t''
transfer\t''
other\t''
till\t''
none\t''"
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l at -d 'When it was issued [default: now]; local time in the stringer\'s zone unless an offset is given. Never in the future, never before its original, and not before the year\'s last credit note unless --backdate' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l backdate -d 'Accept an --at before the year\'s last credit note, or before last year'
complete -c receipts -n "__fish_receipts_using_subcommand credit" -l send -d 'Then e-mail the credit note to the order\'s address (as `receipts send C-...`)'
complete -c receipts -n "__fish_receipts_using_subcommand credit" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand credit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l year -d 'Every receipt of this year instead, as PDF files in --out-dir' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l out-dir -d 'Where --year writes its files: DIR/<handle>-<number>.pdf' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -s o -l output -d 'Write to this file (- for stdout); a PDF needs it. --format defaults to pdf when the name ends in .pdf' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l lang -d 'Language of the receipt [default: the stringer\'s, else English]' -r -f -a "en\t''
de\t''
fr\t''
it\t''"
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l width -d 'Columns of a text receipt (at least 32; 48 or 42 for receipt printers)' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l format -d 'text for a terminal or a receipt printer, or pdf (PDF/A) [default: pdf when -o ends in .pdf, else text]' -r -f -a "text\t''
pdf\t''"
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l xml -d 'Write the Factur-X (EN 16931 CII) XML alone to this file (- for stdout)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l copy -d 'Mark it as a copy (a re-issue the customer asked for)'
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l einvoice -d 'Write the PDF as an e-invoice: PDF/A-3 with its Factur-X (EN 16931) XML embedded; refused when the document cannot be one (with --year: each that can be one) [default: as `stringer edit --einvoice` says]'
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -l no-einvoice -d 'Write a plain PDF, whatever the stringer\'s default'
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand receipt" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l year -d 'Every document of this year instead (invoices, receipts, then credit notes)' -r
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l out-dir -d 'Where the file goes, named IT{partita IVA}_{progressivo}.xml [default: the current directory]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand einvoice" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand send" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand send" -l year -d 'With --unsent: only this year\'s' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l to -d 'The recipient [default: the order\'s e-mail address]' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l lang -d 'Language of the message and its document [default: the stringer\'s, else English]' -r -f -a "en\t''
de\t''
fr\t''
it\t''"
complete -c receipts -n "__fish_receipts_using_subcommand send" -s o -l output -d 'With --dry-run: write the message to this file (never over a different one)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand send" -l format -d 'With --unsent --dry-run: a table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand send" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand send" -l unsent -d 'Every numbered order with a customer e-mail address that was never sent, one message each, going on past one that fails'
complete -c receipts -n "__fish_receipts_using_subcommand send" -l copy -d 'Send the document as a copy (a re-issue the customer asked for)'
complete -c receipts -n "__fish_receipts_using_subcommand send" -l again -d 'Send it although it was sent before'
complete -c receipts -n "__fish_receipts_using_subcommand send" -l dry-run -d 'Send nothing: print the message it would send (RFC 5322, an .eml) to stdout or -o FILE; with --unsent, list what would be sent (recipient, document, subject)'
complete -c receipts -n "__fish_receipts_using_subcommand send" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand send" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand remind" -s o -l output -d 'With --dry-run: write ORDER\'s message to this file (never over a different one)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l out-dir -d 'Write the reminders of customers without an e-mail address here, as PDFs for the post (without it they are listed as to print, and nothing is issued for them)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l format -d 'With --due: a table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l due -d 'Every invoice whose next reminder is due by the stringer\'s --remind-after and --remind-every days, one each, going on past one that fails'
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l again -d 'Send the last reminder of ORDER once more, unchanged'
complete -c receipts -n "__fish_receipts_using_subcommand remind" -l dry-run -d 'Issue and send nothing: ORDER\'s message (RFC 5322, an .eml; for a customer without e-mail, the reminder\'s PDF) to stdout or -o FILE; with --due, the list of what is due'
complete -c receipts -n "__fish_receipts_using_subcommand remind" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand remind" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -f -a "add" -d 'Record a reel bought: the string is stocked, and every racket strung with it uses its length (prints the metres left)'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -f -a "list" -d 'Each stocked string: metres and rackets left, and whether it is low'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and not __fish_seen_subcommand_from add list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l length -d 'The reel\'s length in metres, e.g. 200' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l cost -d 'What the reel cost, in the stringer\'s currency' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l low -d 'Warn below this many metres [default: two rackets\' worth]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from help" -f -a "add" -d 'Record a reel bought: the string is stocked, and every racket strung with it uses its length (prints the metres left)'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from help" -f -a "list" -d 'Each stocked string: metres and rackets left, and whether it is low'
complete -c receipts -n "__fish_receipts_using_subcommand strings; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand notify" -s o -l output -d 'With --dry-run: write the message to this file (never over a different one)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l format -d 'With --pending --dry-run: a table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l pending -d 'Every racket waiting for pickup whose customer has an e-mail address and was not told yet, one message each, going on past one that fails'
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l again -d 'Tell the customer although they were told before'
complete -c receipts -n "__fish_receipts_using_subcommand notify" -l dry-run -d 'Send nothing: print the message it would send (RFC 5322, an .eml) to stdout or -o FILE; with --pending, list whom it would tell'
complete -c receipts -n "__fish_receipts_using_subcommand notify" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand notify" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -f -a "import" -d 'Mark invoices paid from a bank file (camt.054 notification or camt.053 statement): exact payments by their reference, each bank transaction once; everything else listed with its reason and remembered (exit 1 when any is new or still open)'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -f -a "list" -d 'The bank transactions imports listed as needing attention, and whether they were settled'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -f -a "settle" -d 'Mark a listed bank transaction handled (a partial payment settled by hand, a double payment refunded), with the reason; journaled'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and not __fish_seen_subcommand_from import list settle help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -l dry-run -d 'Change nothing: list what the import would do'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from import" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -l open -d 'Only those not settled yet'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l reason -d 'How it was handled, for the journal' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from settle" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from help" -f -a "import" -d 'Mark invoices paid from a bank file (camt.054 notification or camt.053 statement): exact payments by their reference, each bank transaction once; everything else listed with its reason and remembered (exit 1 when any is new or still open)'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from help" -f -a "list" -d 'The bank transactions imports listed as needing attention, and whether they were settled'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from help" -f -a "settle" -d 'Mark a listed bank transaction handled (a partial payment settled by hand, a double payment refunded), with the reason; journaled'
complete -c receipts -n "__fish_receipts_using_subcommand payments; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l stringer -d 'The stringer of rows without one (for a single stringer\'s export)' -r
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l timezone -d 'Time zone of the stringers this import creates [default: the TZ environment variable, else this machine\'s zone, else UTC]' -r
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l format -d 'The summary as a table for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -l dry-run -d 'Check the file and show the plan; write nothing'
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand migrate-v1" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l last-closure -d 'The highest closure number of the stringer known outside the restored database (from the e-mailed digests): its closures go on above it, and `audit --verify` lists the ones lost. Needs --stringer' -r
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l stringer -d 'The stringer of --last-closure' -r
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l format -d 'A table for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l dry-run -d 'Only show what would change'
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -l allow-lower -d 'Also lower counters that are ahead of the orders. Only when you know the numbers above the highest order were never given to a customer: otherwise they would be issued twice'
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand resync-counters" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l year -d 'Only this year' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l format -d 'A table for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l public-key -d 'With --verify: the stringer\'s public key as kept outside the database (`key init` printed it); the closures must be signed by it or by a key it handed over to' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l anchor -d 'With --verify: a closure\'s digest kept outside the database (`close --mail` sends them); each must be found in the journal. May be repeated' -r
complete -c receipts -n "__fish_receipts_using_subcommand audit" -l verify -d 'Also recompute every stringer\'s journal chain from its start: each event\'s hash, its place, the head; the first break is named (stringer, event, what)'
complete -c receipts -n "__fish_receipts_using_subcommand audit" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand audit" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand close" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand close" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l date -d 'The day to close (earlier unclosed days are closed first, in order) [default: today]' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l key-file -d 'The signing key [default: keys/HANDLE.ed25519 in the data directory, or in RECEIPTS_KEY_DIR]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand close" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand close" -l format -d 'A summary for people, or JSON for scripts' -r -f -a "table\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand close" -l mail -d 'E-mail the closures\' digests to the stringer\'s own address (an anchor outside the database)'
complete -c receipts -n "__fish_receipts_using_subcommand close" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand close" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -f -a "init" -d 'Make the stringer\'s signing key (Ed25519), write it to its file (never into the database) and record its public key in the journal; prints the public key to keep'
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -f -a "rotate" -d 'Replace the signing key: the old key signs the new, the journal records both, and the old key file is kept beside the new as FILE.retired-FINGERPRINT'
complete -c receipts -n "__fish_receipts_using_subcommand key; and not __fish_seen_subcommand_from init rotate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l key-file -d 'The key file [default: keys/HANDLE.ed25519 in the data directory, or in RECEIPTS_KEY_DIR]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from init" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l key-file -d 'The key file [default: keys/HANDLE.ed25519 in the data directory, or in RECEIPTS_KEY_DIR]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from rotate" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "init" -d 'Make the stringer\'s signing key (Ed25519), write it to its file (never into the database) and record its public key in the journal; prints the public key to keep'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Replace the signing key: the old key signs the new, the journal records both, and the old key file is kept beside the new as FILE.retired-FINGERPRINT'
complete -c receipts -n "__fish_receipts_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand export" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand export" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand export" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand export" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand export" -l year -d 'The year whose receipts to export' -r
complete -c receipts -n "__fish_receipts_using_subcommand export" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand export" -s o -l output -d 'Write to this file instead of stdout (an existing file is not overwritten)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand export" -l format -d 'CSV for an accountant\'s program, or JSON for scripts' -r -f -a "csv\t''
json\t''"
complete -c receipts -n "__fish_receipts_using_subcommand export" -l out-dir -d 'The directory the auditor\'s export is written into (made if missing; a file there that differs is never overwritten)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand export" -l auditor -d 'For a tax audit: the stringer\'s year as CSV files with an index.xml in the GDPdU description standard (data access Z3), the journal and closures, and the journal\'s verification, written into --out-dir'
complete -c receipts -n "__fish_receipts_using_subcommand export" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand export" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l year -d 'Only this year\'s numbers' -r
complete -c receipts -n "__fish_receipts_using_subcommand journal" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand journal" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand journal" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l date -d 'The day [default: today, in the stringer\'s calendar]' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l since -d 'From this day on (with --until)' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l until -d 'Until this day, inclusive (with --since)' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand takings" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand takings" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand takings" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l year -d 'The year of the period [a whole year unless --quarter, --half or --month]' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l quarter -d 'Only this quarter of the year (1-4)' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l half -d 'Only this half of the year (1-2)' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l month -d 'Only this month of the year (1-12)' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l basis -d 'agreed: receipts by their strung date; received: paid receipts by their paid date' -r -f -a "agreed\t'receipts by the date they were strung'
received\t'paid receipts by the date they were paid'"
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c receipts -n "__fish_receipts_using_subcommand vat-report" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l out-dir -d 'Write receipts-YYYYMMDD-HHMMSS.sqlite3 (UTC) in this directory instead [default, without FILE: RECEIPTS_BACKUP_DIR, as the shop\'s configuration sets it]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand backup" -l keep -d 'With --out-dir: keep this many such backups, removing the oldest (never a file of another name) [default: RECEIPTS_BACKUP_KEEP, with the configured directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand backup" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand backup" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l listen -d 'The address and port to answer on; another than the loopback needs TLS or --allow-http' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l base-url -d 'Where users reach the counter (e.g. https://shop.example), when a proxy stands in front: labels\' QR codes open its pages, and an https address marks cookies Secure' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l tls-cert -d 'The TLS certificate chain (PEM): the counter speaks HTTPS itself' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l tls-key -d 'The TLS certificate\'s private key (PEM)' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l session-idle -d 'Minutes a session lasts without use' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l smtp-url -d 'The mail server: smtp://USER:PASSWORD@HOST:PORT (STARTTLS) or smtps://... (TLS)' -r
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l key-dir -d 'Where the stringers\' signing keys are (HANDLE.ed25519): after the first request of a day, each stringer\'s yesterday is closed and signed [default: keys/ in the data directory]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand serve" -l allow-http -d 'Answer plain HTTP on an address other than the loopback: only behind a proxy that speaks TLS to the browsers (docs/DEPLOY.md)'
complete -c receipts -n "__fish_receipts_using_subcommand serve" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand serve" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -f -a "add" -d 'An account for the counter in the browser (`receipts serve`), working for one stringer; the password is read twice from the terminal'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -f -a "list" -d 'Every account: its stringer, role, language, open sessions'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -f -a "passwd" -d 'A new password for an account; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -f -a "disable" -d 'The account can no longer log in; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand account; and not __fish_seen_subcommand_from add list passwd disable help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l stringer -d 'The stringer\'s handle [env: RECEIPTS_STRINGER]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l role -d 'staff: the day\'s work; owner: also voids, the profile and bank files' -r -f -a "owner\t''
staff\t''"
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l language -d 'The language of its pages [default: the browser\'s, else the stringer\'s]' -r -f -a "en\t''
de\t''
fr\t''
it\t''"
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -l password-stdin -d 'Read the password as one line from standard input (for scripts)'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -l format -d 'A table for people, JSON for scripts, or CSV for spreadsheets' -r -f -a "table\t''
json\t''
csv\t''"
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -l password-stdin -d 'Read the password as one line from standard input (for scripts)'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from passwd" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from disable" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "add" -d 'An account for the counter in the browser (`receipts serve`), working for one stringer; the password is read twice from the terminal'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every account: its stringer, role, language, open sessions'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "passwd" -d 'A new password for an account; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "disable" -d 'The account can no longer log in; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -f -a "migrate" -d 'Apply the schema migrations this database lacks (SQLite files get them on first use)'
complete -c receipts -n "__fish_receipts_using_subcommand db; and not __fish_seen_subcommand_from migrate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from migrate" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Apply the schema migrations this database lacks (SQLite files get them on first use)'
complete -c receipts -n "__fish_receipts_using_subcommand db; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand completions" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand completions" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand completions" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand completions" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand completions" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand completions" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand man" -l database-url -d 'Database: postgres://..., postgresql://..., sqlite://PATH, file:PATH or a file path [default: receipts.db in the platform\'s data directory]' -r
complete -c receipts -n "__fish_receipts_using_subcommand man" -l lock-timeout -d 'Seconds a change waits for a lock held by someone else before giving up (exit 75)' -r
complete -c receipts -n "__fish_receipts_using_subcommand man" -l retry-for -d 'Seconds to keep trying a command that is safe to repeat (a mint by order id, reads, send until the mail server has the message, payments import) while the database is unreachable or busy (exit 69 or 75), reconnecting each time: a failover becomes a short wait [default: 0, never]' -r
complete -c receipts -n "__fish_receipts_using_subcommand man" -l config -d 'KEY=value settings for what no flag or variable says [default: /etc/receipts/receipts.conf]' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand man" -l out-dir -d 'Write every page (receipts.1, receipts-order.1, receipts-order-add.1, ...) into this directory instead' -r -F
complete -c receipts -n "__fish_receipts_using_subcommand man" -s h -l help -d 'Print help'
complete -c receipts -n "__fish_receipts_using_subcommand man" -s V -l version -d 'Print version'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "setup" -d 'The shop\'s first run: the stringer, its profile and the owner\'s account, asked at the terminal or given as flags; --link prints the browser\'s one-time setup address'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "stringer" -d 'Add, list, show and edit stringers'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "order" -d 'Add, list, show and edit orders; unstring, restring or delete one'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "customer" -d 'The customer register: add, edit, find, show, merge and forget customers'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "racket" -d 'Customers\' rackets: add, edit, list, and show one with its jobs'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "queue" -d 'The day\'s work: open orders by promised time (the overdue first), then the rackets waiting for pickup'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "label" -d 'A PDF label for the racket (62 x 100 mm or 4 x 6 in) with a QR code of the order; or one per open order'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "mint" -d 'Mark an order strung and give it the next receipt number (prints the number)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "void" -d 'Void a numbered order, or document a number whose order was lost: the number stays taken, with the reason on record'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "credit" -d 'Take back a document the customer holds, in full or in part: a credit note numbered C-YYYY-NNNN in its own series (prints the number)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "receipt" -d 'Render the receipt of a numbered order (text or PDF/A), or every receipt of a year'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "einvoice" -d 'An Italian stringer\'s document as the FatturaPA file for SdI (IT{partita IVA}_{progressivo}.xml), or every document of a year'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "send" -d 'E-mail the document of a numbered order (the PDF attached) over the stringer\'s mail server, once unless asked again; or every document not sent yet'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "remind" -d 'Chase an unpaid invoice: its next reminder (levels 1-3, a PDF with the payment part for the open amount), or every reminder that is due; once per invoice and level'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "strings" -d 'String stock: record reels bought, and see what is left'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "notify" -d 'Tell the customer by e-mail that the racket is ready, once unless asked again; or every customer not told yet'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "payments" -d 'Payments from the bank: mark invoices paid from its camt files'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "migrate-v1" -d 'Import an export of the V1 system, numbering its strung orders per stringer and year'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "resync-counters" -d 'After a restore: set each counter to the highest number in use (never lower unless asked)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "audit" -d 'Check every stringer\'s numbering: 1..N, no duplicates, voids explained, gaps and collisions named (exit 1 on any problem)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "close" -d 'Close the business day: the events since the last closure summed per series, method, currency and VAT rate, added to perpetual grand totals, signed, and chained'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "key" -d 'The signing key of the day\'s closures: init, rotate'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "export" -d 'The accountant\'s ledger of a year: every issued number, voids included (CSV or JSON), with totals per stringer and currency on stderr'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "journal" -d 'The journal: every mint, void, recount and import, and every change, e-mail and payment of a numbered order, oldest first'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "takings" -d 'The day\'s payments per method and currency (the evening count of the till), VAT per rate beside them'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "vat-report" -d 'What the VAT return asks for: receipts, gross, VAT and net per stringer, currency and rate for a year, quarter, half or month'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "backup" -d 'Copy the SQLite database to a new file while it is in use, and verify the copy'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "serve" -d 'The counter in the browser: pages for the day\'s work on this database'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "account" -d 'Accounts of the counter in the browser: add, list, new password, disable'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "db" -d 'Manage the database schema'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "completions" -d 'Print a completion script for a shell (bash, zsh, fish, ...)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "man" -d 'Print the manual page (roff) of the program or of one of its commands, or write them all'
complete -c receipts -n "__fish_receipts_using_subcommand help; and not __fish_seen_subcommand_from setup stringer order customer racket queue label mint void credit receipt einvoice send remind strings notify payments migrate-v1 resync-counters audit close key export journal takings vat-report backup serve account db completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from stringer" -f -a "add" -d 'Add a stringer (prints the handle)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from stringer" -f -a "list" -d 'List the stringers'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from stringer" -f -a "show" -d 'Show a stringer\'s profile and, per year, the counter and the next number'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from stringer" -f -a "edit" -d 'Change a stringer\'s profile; a new time zone applies to future mints, and is refused if it would move an issued receipt into another year'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "add" -d 'Take an order (prints its id)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "list" -d 'List orders'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "show" -d 'Show one order, by its id or its receipt number (YYYY-NNNN, with --stringer)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "edit" -d 'Change an order\'s details; its receipt number stays as it is'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "unstring" -d 'Clear the strung time; the order keeps its receipt number'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "restring" -d 'Copy a numbered order into a new one, to be strung and numbered anew (prints the new id)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "delete" -d 'Delete an order taken by mistake; one with a receipt number can only be voided'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "pickup" -d 'The customer took the strung racket, and with --paid paid for it there and then'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from order" -f -a "pay" -d 'Take a payment of a numbered invoice: all that is left to pay, or with --amount a part'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "add" -d 'Add a customer to the register (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "edit" -d 'Change a customer\'s name, contact, address or notes; issued documents keep theirs'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "list" -d 'The register, or the customers found by part of their name, e-mail or phone number'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "show" -d 'A customer: contact, rackets, and their orders newest first'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "merge" -d 'Move the orders and rackets of a customer entered twice to the other, and remove it'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from customer" -f -a "forget" -d 'Forget a customer (privacy law): erase what issued documents need not keep'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from racket" -f -a "add" -d 'Add a racket to a customer (prints the id)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from racket" -f -a "edit" -d 'Change a racket\'s model, sport, pattern, tag or notes'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from racket" -f -a "list" -d 'A customer\'s rackets'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from racket" -f -a "show" -d 'A racket, by its id or its tag, and its jobs newest first'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from strings" -f -a "add" -d 'Record a reel bought: the string is stocked, and every racket strung with it uses its length (prints the metres left)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from strings" -f -a "list" -d 'Each stocked string: metres and rackets left, and whether it is low'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from payments" -f -a "import" -d 'Mark invoices paid from a bank file (camt.054 notification or camt.053 statement): exact payments by their reference, each bank transaction once; everything else listed with its reason and remembered (exit 1 when any is new or still open)'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from payments" -f -a "list" -d 'The bank transactions imports listed as needing attention, and whether they were settled'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from payments" -f -a "settle" -d 'Mark a listed bank transaction handled (a partial payment settled by hand, a double payment refunded), with the reason; journaled'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "init" -d 'Make the stringer\'s signing key (Ed25519), write it to its file (never into the database) and record its public key in the journal; prints the public key to keep'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "rotate" -d 'Replace the signing key: the old key signs the new, the journal records both, and the old key file is kept beside the new as FILE.retired-FINGERPRINT'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "add" -d 'An account for the counter in the browser (`receipts serve`), working for one stringer; the password is read twice from the terminal'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "list" -d 'Every account: its stringer, role, language, open sessions'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "passwd" -d 'A new password for an account; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "disable" -d 'The account can no longer log in; its open sessions end'
complete -c receipts -n "__fish_receipts_using_subcommand help; and __fish_seen_subcommand_from db" -f -a "migrate" -d 'Apply the schema migrations this database lacks (SQLite files get them on first use)'
