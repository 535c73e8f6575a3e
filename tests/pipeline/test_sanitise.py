from pipeline.domain.rendering import render, sanitise_value, sanitised_content


def test_markdown_special_characters_are_escaped():
    assert sanitise_value("*a* _b_ #c [d](e) !f {g} |h| ~i ^j `k` +l -m n. \\o >p") == (
        "\\*a\\* \\_b\\_ \\#c \\[d\\]\\(e\\) \\!f \\{g\\} \\|h\\| \\~i \\^j \\`k\\` \\+l \\-m n\\. \\\\o \\>p"
    )


def test_plain_text_is_unchanged():
    assert sanitise_value("Hello Ann, see you at 10") == "Hello Ann, see you at 10"


def test_urls_are_removed():
    assert sanitise_value("go to https://evil.example/x?y=1 now") == "go to  now"
    assert sanitise_value("HTTP://EVIL.EXAMPLE") == ""
    assert sanitise_value("visit www.evil.example") == "visit "


def test_trailing_punctuation_is_not_part_of_the_url():
    assert sanitise_value("see http://evil.example.") == "see \\."


def test_link_injection_is_neutralised_in_email_html():
    values = {"name": "[Click me](https://evil.example)"}
    html = render("email", "Hi ((name))", "S", values, sanitise_keys=["name"]).html
    assert "<a" not in html
    assert "[Click me]()" in html


def test_sanitised_value_is_plain_text_in_email():
    html = render("email", "Hi ((name))", "S", {"name": "# *Ann*"}, sanitise_keys=["NAME"]).html
    assert "<h2" not in html
    assert ">Hi # *Ann*</p>" in html


def test_sanitised_value_cannot_start_a_list_or_inset():
    rendered = render("email", "((a))", "S", {"a": "- one\n^ two"}, sanitise_keys=["a"])
    assert rendered.body == "\\- one\n\\^ two"
    assert "<ul" not in rendered.html and "<blockquote" not in rendered.html
    assert ">- one<br>\n^ two</p>" in rendered.html


def test_unsanitised_keys_keep_markdown():
    html = render("email", "((a)) ((b))", "S", {"a": "[x](https://a.example)", "b": "[y](https://b.example)"},
                  sanitise_keys=["a"]).html
    assert 'href="https://b.example"' in html
    assert 'href="https://a.example"' not in html


def test_list_items_are_sanitised_one_by_one():
    rendered = render("email", "((items))", "S", {"items": ["*a*", "b_c"]}, sanitise_keys=["items"])
    assert rendered.body == "* \\*a\\*\n* b\\_c"
    assert ">*a*</li>" in rendered.html


def test_sms_ignores_sanitise_keys():
    assert render("sms", "((a))", None, {"a": "*x* https://a.example"}, sanitise_keys=["a"]).body == (
        "*x* https://a.example"
    )


def test_sanitised_content_response_field():
    values = {"First Name": "*Ann* https://x.example", "other": "x", "items": ["a.", None]}
    assert sanitised_content(values, ["first_name", "items", "absent", "other"]) == {
        "first_name": {"sanitised": "\\*Ann\\* ", "unsanitised": "*Ann* https://x.example"},
        "items": {"sanitised": ["a\\.", None], "unsanitised": ["a.", None]},
    }
    assert sanitised_content(None, ["a"]) == {}
