// @generated automatically by Diesel CLI.

diesel::table! {
    customers (id) {
        id -> Int8,
        stringer_id -> Int8,
        name -> Text,
        search_name -> Text,
        email -> Nullable<Text>,
        search_email -> Nullable<Text>,
        phone -> Nullable<Text>,
        phone_digits -> Nullable<Text>,
        address -> Nullable<Text>,
        postal -> Nullable<Text>,
        notes -> Nullable<Text>,
        forgotten_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    issuers (id) {
        id -> Int8,
        stringer_id -> Int8,
        name -> Text,
        address -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        vat_number -> Nullable<Text>,
        tax_number -> Nullable<Text>,
        small_business -> Bool,
        language -> Nullable<Text>,
        timezone -> Text,
        street -> Nullable<Text>,
        house_number -> Nullable<Text>,
        postcode -> Nullable<Text>,
        town -> Nullable<Text>,
        country -> Nullable<Text>,
        iban -> Nullable<Text>,
        bic -> Nullable<Text>,
        payment_days -> Int4,
        created_at -> Timestamp,
        siret -> Nullable<Text>,
        account_holder -> Nullable<Text>,
    }
}

diesel::table! {
    listed_payments (id) {
        id -> Int8,
        stringer_id -> Int8,
        bank_reference -> Text,
        reference -> Text,
        receipt_year -> Int4,
        receipt_seq -> Int8,
        order_id -> Nullable<Int8>,
        amount_minor -> Int8,
        currency -> Text,
        booked_on -> Date,
        outcome -> Text,
        file -> Text,
        listed_at -> Timestamp,
        settled_at -> Nullable<Timestamp>,
        settle_reason -> Nullable<Text>,
    }
}

diesel::table! {
    orders (id) {
        id -> Int8,
        stringer_id -> Int8,
        kind -> Text,
        customer -> Nullable<Text>,
        racket -> Nullable<Text>,
        string -> Nullable<Text>,
        tension -> Nullable<Text>,
        price_minor -> Nullable<Int8>,
        currency -> Text,
        ordered_at -> Nullable<Timestamp>,
        strung_at -> Nullable<Timestamp>,
        returned_at -> Nullable<Timestamp>,
        paid_at -> Nullable<Timestamp>,
        receipt_year -> Nullable<Int4>,
        receipt_seq -> Nullable<Int8>,
        voided_at -> Nullable<Timestamp>,
        void_reason -> Nullable<Text>,
        restring_of -> Nullable<Int8>,
        v1_kind -> Nullable<Text>,
        v1_id -> Nullable<Int8>,
        notes -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        receipt_number -> Nullable<Text>,
        issuer_id -> Nullable<Int8>,
        customer_note -> Nullable<Text>,
        vat_rate_bp -> Nullable<Int4>,
        customer_address -> Nullable<Text>,
        customer_postal -> Nullable<Text>,
        email -> Nullable<Text>,
        payment_method -> Nullable<Text>,
        customer_id -> Nullable<Int8>,
        racket_id -> Nullable<Int8>,
        due_at -> Nullable<Timestamp>,
        notified_at -> Nullable<Timestamp>,
        items_minor -> Int8,
        item_count -> Int4,
        string_length_cm -> Nullable<Int4>,
        own_string -> Bool,
        cross_string -> Nullable<Text>,
    }
}

diesel::table! {
    order_items (id) {
        id -> Int8,
        order_id -> Int8,
        position -> Int4,
        text -> Text,
        price_minor -> Int8,
    }
}

diesel::table! {
    payments (id) {
        id -> Int8,
        stringer_id -> Int8,
        bank_reference -> Text,
        order_id -> Int8,
        reference -> Text,
        amount_minor -> Int8,
        currency -> Text,
        booked_on -> Date,
        created_at -> Timestamp,
    }
}

diesel::table! {
    rackets (id) {
        id -> Int8,
        stringer_id -> Int8,
        customer_id -> Int8,
        model -> Nullable<Text>,
        search_model -> Text,
        sport -> Text,
        pattern -> Nullable<Text>,
        tag -> Nullable<Text>,
        notes -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    receipt_counters (stringer_id, year) {
        stringer_id -> Int8,
        year -> Int4,
        last_n -> Int8,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    receipt_events (id) {
        id -> Int8,
        kind -> Text,
        stringer_id -> Int8,
        year -> Int4,
        first_seq -> Nullable<Int8>,
        last_seq -> Nullable<Int8>,
        order_id -> Nullable<Int8>,
        counter_old -> Nullable<Int8>,
        counter_new -> Nullable<Int8>,
        reason -> Nullable<Text>,
        created_at -> Timestamp,
        field -> Nullable<Text>,
        old_value -> Nullable<Text>,
        new_value -> Nullable<Text>,
    }
}

diesel::table! {
    stringers (id) {
        id -> Int8,
        handle -> Text,
        name -> Text,
        timezone -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        address -> Nullable<Text>,
        email -> Nullable<Text>,
        phone -> Nullable<Text>,
        vat_number -> Nullable<Text>,
        language -> Nullable<Text>,
        tax_number -> Nullable<Text>,
        small_business -> Bool,
        street -> Nullable<Text>,
        house_number -> Nullable<Text>,
        postcode -> Nullable<Text>,
        town -> Nullable<Text>,
        country -> Nullable<Text>,
        iban -> Nullable<Text>,
        bic -> Nullable<Text>,
        payment_days -> Int4,
        issuer_id -> Nullable<Int8>,
        currency -> Text,
        siret -> Nullable<Text>,
        account_holder -> Nullable<Text>,
        turnaround_hours -> Int4,
        pickup_note -> Nullable<Text>,
    }
}

diesel::table! {
    string_moves (id) {
        id -> Int8,
        stringer_id -> Int8,
        string_id -> Int8,
        order_id -> Nullable<Int8>,
        length_cm -> Int4,
        cost_minor -> Nullable<Int8>,
        currency -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    strings (id) {
        id -> Int8,
        stringer_id -> Int8,
        name -> Text,
        search_name -> Text,
        low_cm -> Nullable<Int4>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    vat_rates (stringer_id, valid_from) {
        stringer_id -> Int8,
        valid_from -> Date,
        rate_bp -> Int4,
        created_at -> Timestamp,
    }
}

diesel::joinable!(customers -> stringers (stringer_id));
diesel::joinable!(listed_payments -> orders (order_id));
diesel::joinable!(listed_payments -> stringers (stringer_id));
diesel::joinable!(order_items -> orders (order_id));
diesel::joinable!(orders -> customers (customer_id));
diesel::joinable!(orders -> issuers (issuer_id));
diesel::joinable!(orders -> rackets (racket_id));
diesel::joinable!(orders -> stringers (stringer_id));
diesel::joinable!(payments -> orders (order_id));
diesel::joinable!(payments -> stringers (stringer_id));
diesel::joinable!(rackets -> customers (customer_id));
diesel::joinable!(rackets -> stringers (stringer_id));
diesel::joinable!(receipt_counters -> stringers (stringer_id));
diesel::joinable!(receipt_events -> orders (order_id));
diesel::joinable!(receipt_events -> stringers (stringer_id));
diesel::joinable!(string_moves -> orders (order_id));
diesel::joinable!(string_moves -> strings (string_id));
diesel::joinable!(strings -> stringers (stringer_id));
diesel::joinable!(vat_rates -> stringers (stringer_id));

diesel::allow_tables_to_appear_in_same_query!(
    customers,
    issuers,
    listed_payments,
    order_items,
    orders,
    payments,
    rackets,
    receipt_counters,
    receipt_events,
    string_moves,
    stringers,
    strings,
    vat_rates,
);

diesel::table! {
    accounts (id) {
        id -> Int8,
        stringer_id -> Int8,
        username -> Text,
        password_hash -> Text,
        role -> Text,
        language -> Nullable<Text>,
        disabled_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    sessions (token_hash) {
        token_hash -> Text,
        account_id -> Int8,
        csrf -> Text,
        created_at -> Timestamp,
        last_seen_at -> Timestamp,
    }
}

diesel::table! {
    login_failures (id) {
        id -> Int8,
        username -> Text,
        failed_at -> Timestamp,
    }
}

diesel::joinable!(accounts -> stringers (stringer_id));
diesel::joinable!(sessions -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(accounts, sessions, stringers);
