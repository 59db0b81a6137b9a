//! The journey model's tests: parsing, origins and secrets.

use super::*;
use serde_json::json;

const OWNER_EXAMPLE: &str = r##"{"name": "sign in", "logged_in": {"text": "Sign out"}, "steps": [
{"navigate": "/login"},
{"fill": "#email", "value": "owner@example.org"},
{"fill": "#password", "value": "{{secret.PASSWORD}}"},
{"click": "button[type=submit]"},
{"wait_for": {"url": "/account*"}},
{"audit": "account page"}]}"##;

fn error_of(text: &str) -> String {
    parse_journey(text).expect_err("refused").to_string()
}

#[test]
fn owner_example_parses_and_round_trips() {
    let j = parse_journey(OWNER_EXAMPLE).expect("parses");
    assert_eq!(j.name, "sign in");
    assert_eq!(j.logged_in, Some(LoggedInProof::Text("Sign out".into())));
    assert_eq!(j.steps.len(), 6);
    assert_eq!(j.steps[2].action, Action::Fill { selector: "#password".into(), value: "{{secret.PASSWORD}}".into() });
    assert_eq!(j.steps[4].action, Action::WaitFor(WaitFor::Url("/account*".into())));
    assert!(j.steps.iter().all(|s| s.timeout_ms == DEFAULT_STEP_TIMEOUT_MS));
    assert_eq!(j.secret_names(), vec!["PASSWORD".to_string()]);
    let again: Journey = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
    assert_eq!(again, j);
    assert!(validate_secrets(&j, &["PASSWORD"]).is_ok());
    assert_eq!(validate_secrets(&j, &["OTHER"]).unwrap_err().to_string(), "steps[2].value: unknown secret \"PASSWORD\" (known: OTHER)");
    assert_eq!(validate_secrets::<&str>(&j, &[]).unwrap_err().path, "steps[2].value");
}

#[test]
fn yaml_is_accepted() {
    let yaml = "name: shop\nlogged_in:\n  selector: '#logout'\nsteps:\n  - navigate: /\n  - click: '#add'\n    timeout_ms: 1500\n  - wait_for:\n      selector: '#cart'\n      state: hidden\n  - select: '#size'\n    value: M\n  - press: Enter\n  - assert:\n      text: Thanks\n  - screenshot: done\n";
    let j = parse_journey(yaml).expect("yaml parses");
    assert_eq!(j.logged_in, Some(LoggedInProof::Selector("#logout".into())));
    assert_eq!(j.steps[1].timeout_ms, 1500);
    assert_eq!(j.steps[2].action, Action::WaitFor(WaitFor::Selector { selector: "#cart".into(), state: ElementState::Hidden }));
    assert_eq!(j.steps[3].action, Action::Select { selector: "#size".into(), value: "M".into() });
    assert_eq!(j.steps[5].action, Action::Assert(Assertion::Text("Thanks".into())));
    let bad = "name: shop\nsteps:\n  - navigate: /\n  - fill: '#q'\n";
    assert_eq!(error_of(bad), "steps[1].fill: \"value\" is required");
    let bad_state = "name: shop\nsteps:\n  - wait_for: {selector: '#x', state: shown}\n";
    assert_eq!(error_of(bad_state), "steps[0].wait_for.state: \"shown\" is not one of visible, hidden, gone");
}

#[test]
fn every_error_names_the_step_and_field() {
    let cases: &[(&str, &str)] = &[
        (r##"{"name": "x", "steps": [{"navigate": "/"}, {"navigate": "/a"}, {"click": "a"}, {"fill": "#q"}]}"##, "steps[3].fill: \"value\" is required"),
        (r##"{"name": "x", "steps": [{"clik": "a"}]}"##, "steps[0].clik: unknown action key"),
        (r##"{"name": "x", "steps": [{"click": "a", "fill": "b", "value": "c"}]}"##, "steps[0]: two action keys"),
        (r##"{"name": "x", "steps": [{"wait_for": {"selector": "a", "state": "shown"}}]}"##, "steps[0].wait_for.state: \"shown\" is not one of"),
        (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": 0}]}"##, "steps[0].timeout_ms: 0 is out of range"),
        (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": 999999}]}"##, "steps[0].timeout_ms: 999999 is out of range"),
        (r##"{"name": "x", "steps": [{"click": "a", "timeout_ms": "fast"}]}"##, "steps[0].timeout_ms: expected a number"),
        (r##"{"name": "x", "steps": [{"click": "a", "value": "b"}]}"##, "steps[0].value: \"click\" takes no \"value\""),
        (r##"{"name": "x", "steps": [{"click": "a", "delay": 3}]}"##, "steps[0].delay: unknown option of \"click\""),
        (r##"{"name": "x", "steps": [{"click": 3}]}"##, "steps[0].click: expected a selector (a string), got a number"),
        (r##"{"name": "x", "steps": [{"timeout_ms": 3}]}"##, "steps[0]: no action key"),
        (r##"{"name": "x", "steps": ["click"]}"##, "steps[0]: expected an object"),
        (r##"{"name": "x", "steps": [{"wait_for": {"url": "/a", "selector": "b"}}]}"##, "steps[0].wait_for: give only one of"),
        (r##"{"name": "x", "steps": [{"assert": {"title": "a"}}]}"##, "steps[0].assert: expected {\"text\": ...} or {\"url\": ...}"),
        (r##"{"name": "x", "steps": [{"fill": "#p", "value": "{{secret.}}"}]}"##, "steps[0].value: {{secret.}} is not a secret reference"),
        (r##"{"name": "x", "steps": [{"navigate": "/?t={{secret.T}}"}]}"##, "steps[0].navigate: secrets can only be typed"),
        (r##"{"name": "x", "steps": []}"##, "steps: at least one step is required"),
        (r##"{"steps": [{"click": "a"}]}"##, "name: is required"),
        (r##"{"name": "x", "logged_in": {"cookie": "sid"}, "steps": [{"click": "a"}]}"##, "logged_in: expected {\"text\": ...} or {\"selector\": ...}"),
        (r##"{"name": "x", "steps": [{"click": "a"}], "extra": 1}"##, "extra: unknown field"),
        (r##"{"name": "x", "steps": [{"click": "a"}"##, "journey: not valid JSON"),
    ];
    for (text, expected) in cases {
        let got = error_of(text);
        assert!(got.starts_with(expected), "{text}\n  expected: {expected}\n  got:      {got}");
    }
}

#[test]
fn urls_match_paths_and_globs() {
    assert!(url_matches("/account*", "http://127.0.0.1:5/account?pw=x"));
    assert!(url_matches("/account", "http://127.0.0.1:5/account"));
    assert!(!url_matches("/account", "http://127.0.0.1:5/account/orders"));
    assert!(!url_matches("/account*", "http://127.0.0.1:5/login"));
    assert!(url_matches("http://127.0.0.1:*/c?rt", "http://127.0.0.1:9/cart"));
    assert!(url_matches("/*/done", "http://a.test/checkout/done#top"));
}

#[test]
fn secrets_are_masked_in_every_form_and_never_debug_printed() {
    let mut s = JourneySecrets::new();
    s.insert("PASSWORD", "p@ss word&1");
    assert_eq!(format!("{s:?}"), "{\"PASSWORD\": \"••••••\"}");
    assert_eq!(s.mask("pw=p%40ss+word%261 and p@ss word&1"), "pw=•••••• and ••••••");
    assert_eq!(s.mask("pw=p%40ss%20word%261"), "pw=••••••");
    assert_eq!(s.found_in("x?pw=p%40ss+word%261"), vec!["PASSWORD"]);
    assert!(s.found_in("nothing").is_empty());
    let mut v = json!({"url": "http://a/?pw=p%40ss+word%261", "list": ["p@ss word&1"]});
    s.mask_json(&mut v);
    assert!(!v.to_string().contains("ss"), "{v}");
    let spec = JourneySpec::new(parse_journey(OWNER_EXAMPLE).unwrap(), { let mut x = JourneySecrets::new(); x.insert("PASSWORD", "hunter2"); x }).unwrap();
    assert!(!format!("{spec:?}").contains("hunter2"));
    assert_eq!(substitute("{{secret.PASSWORD}}!", &spec.secrets), "hunter2!");
    assert_eq!(substitute("a{{ secret.PASSWORD }}b{{secret.OTHER}}{{x}}{{", &spec.secrets), "ahunter2b{{secret.OTHER}}{{x}}{{", "read as the references are");
}

#[test]
fn navigate_loads_only_http_and_https() {
    for bad in ["file:///etc/passwd", "FILE:///etc/passwd", "data:text/html,hi", "javascript:alert(1)", "chrome://settings", "view-source:http://a.test/", "about:config", "filesystem:http://a.test/temporary/x", "blob:http://a.test/x", " file:///x"] {
        let text = format!(r#"{{"name": "x", "steps": [{{"navigate": {}}}]}}"#, serde_json::to_string(bad).unwrap());
        let e = parse_journey(&text).expect_err(bad);
        assert_eq!(e.path, "steps[0].navigate", "{bad}: {e}");
        assert!(e.message.contains("only http and https"), "{bad}: {e}");
    }
    for ok in ["/login", "login?x=1", "//a.test/x", "https://a.test/", "http://127.0.0.1:8080/a", "about:blank", "?q=1#top"] {
        let text = format!(r#"{{"name": "x", "steps": [{{"navigate": {}}}]}}"#, serde_json::to_string(ok).unwrap());
        assert!(parse_journey(&text).is_ok(), "{ok}");
    }
}

#[test]
fn journeys_stay_on_the_sites_origin_and_the_listed_ones() {
    let j = parse_journey(r#"{"name": "x", "origins": ["https://id.example.com/", "https://ID.example.com"], "steps": [{"navigate": "/login"}, {"navigate": "https://id.example.com/authorize"}, {"navigate": "https://shop.example.com:443/done"}]}"#).unwrap();
    assert_eq!(j.origins, vec!["https://id.example.com".to_string()]);
    assert!(j.check_origins("https://shop.example.com").is_ok());
    let e = j.check_origins("https://other.example.com").unwrap_err();
    assert_eq!(e.path, "steps[2].navigate");
    assert_eq!(j.allowed_origins("https://shop.example.com/"), vec!["https://shop.example.com".to_string(), "https://id.example.com".to_string()]);
    let off = parse_journey(r#"{"name": "x", "steps": [{"navigate": "//evil.test/phish"}]}"#).unwrap();
    assert!(off.check_origins("https://shop.example.com").unwrap_err().message.contains("https://evil.test"));
    let plain = parse_journey(r#"{"name": "x", "origins": ["http://id.example.com"], "steps": [{"navigate": "/"}]}"#).unwrap();
    assert_eq!(plain.check_origins("https://shop.example.com").unwrap_err().path, "origins[0]");
    assert!(plain.check_origins("http://127.0.0.1:9000").is_ok(), "an http site may list http origins");
    for (bad, why) in [("https://id.example.com/path", "more than an origin"), ("https://u:p@id.example.com", "more than an origin"), ("file:///x", "only http and https"), ("id.example.com", "not a URL")] {
        let text = format!(r#"{{"name": "x", "origins": [{}], "steps": [{{"navigate": "/"}}]}}"#, serde_json::to_string(bad).unwrap());
        let e = parse_journey(&text).unwrap_err();
        assert!(e.path == "origins[0]" && e.message.contains(why), "{bad}: {e}");
    }
    let again: Journey = serde_json::from_value(serde_json::to_value(&j).unwrap()).unwrap();
    assert_eq!(again, j);
}

#[test]
fn a_run_may_load_only_its_origins() {
    let allowed = vec!["http://127.0.0.1:8080".to_string(), "https://id.example.com".to_string()];
    assert!(may_load("http://127.0.0.1:8080/account?x=1", &allowed).is_ok());
    assert!(may_load("https://id.example.com/authorize", &allowed).is_ok());
    assert!(may_load("about:blank", &allowed).is_ok());
    assert!(may_load("http://127.0.0.1:8081/", &allowed).unwrap_err().contains("http://127.0.0.1:8081 is neither"));
    for bad in ["file:///etc/passwd", "data:text/html,x", "chrome://version", "view-source:http://127.0.0.1:8080/", "about:srcdoc", "blob:http://127.0.0.1:8080/1"] {
        assert!(may_load(bad, &allowed).is_err(), "{bad}");
    }
}

#[test]
fn input_is_bounded_and_yaml_has_no_anchors_or_aliases() {
    let big = format!(r#"{{"name": "{}", "steps": [{{"navigate": "/"}}]}}"#, "x".repeat(MAX_JOURNEY_BYTES));
    assert!(error_of(&big).starts_with("journey: "), "{}", error_of(&big));
    assert!(error_of(&big).contains("64 KiB"));
    let laughs = "name: lol\nsteps:\n  - &a {click: a}\n  - *a\n";
    assert!(error_of(laughs).contains("anchors"), "{}", error_of(laughs));
    let alias = "name: lol\nx: &v /\nsteps: [{navigate: *v}]\n";
    assert!(error_of(alias).contains("anchors"));
    let alias_only = "name: lol\nsteps:\n  - navigate: *v\n";
    assert!(error_of(alias_only).contains("aliases"), "{}", error_of(alias_only));
    let tagged = "name: lol\nsteps:\n  - navigate: !!str &v /\n";
    assert!(error_of(tagged).contains("anchors"), "{}", error_of(tagged));
    // Look-alikes inside scalars and comments are text.
    let fine = "name: 'a & b *c'\nsteps:\n  - click: 'a[href*=x]'\n  - fill: \"#q\"\n    value: fish & chips *fresh*  # *not an alias\n  - click: a*b\n";
    let j = parse_journey(fine).expect("look-alikes are plain text");
    assert_eq!(j.steps[1].action, Action::Fill { selector: "#q".into(), value: "fish & chips *fresh*".into() });
}

#[test]
fn masking_covers_html_json_and_base64_forms() {
    let mut s = JourneySecrets::new();
    s.insert("PASSWORD", "p<a>ss\"w/ord&é");
    let v = "p<a>ss\"w/ord&é";
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(v);
    let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
    let evidence = format!(
        "html p&lt;a&gt;ss&quot;w/ord&amp;é | json {} | ascii-json p<a>ss\\\"w\\/ord&\\u00e9 | b64 {b64} | b64url {b64url} | numeric {}",
        &serde_json::to_string(v).unwrap(),
        v.chars().map(|c| format!("&#{};", u32::from(c))).collect::<String>()
    );
    let masked = s.mask(&evidence);
    assert!(!masked.contains("ss"), "{masked}");
    assert_eq!(masked.matches(SECRET_MASK).count(), 6, "{masked}");
    assert_eq!(s.found_in(&format!("Authorization: Basic {b64}")), vec!["PASSWORD"]);
    let mut short = JourneySecrets::new();
    short.insert("PIN", "123");
    assert_eq!(short.mask("MTIz stays"), "MTIz stays", "no base64 form for a value too short to tell apart");
}
