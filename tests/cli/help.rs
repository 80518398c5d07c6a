use super::*;

#[test]
fn help_of_the_program_and_of_mint() {
    let db = TestDb::sqlite();
    insta::assert_snapshot!("help", ok(&db, &["--help"]));
    insta::assert_snapshot!("mint_help", ok(&db, &["mint", "--help"]));
    insta::assert_snapshot!("order_help", ok(&db, &["order", "--help"]));
}
