Feature: Live price and password strength
  The monthly price and the strength meter are recomputed as the user edits the form.

  Background:
    Given the sign-up page is open

  @R7
  Scenario: The price follows the plan and then the country
    Then the price is "$0.00 / month"
    When I choose the pro plan
    Then the price is "$12.00 / month"
    When I select the country "gb"
    Then the price is "$14.40 / month incl. VAT"

  @R7
  Scenario Outline: Price of a plan in a country
    When I select the country "<country>"
    And I choose the <plan> plan
    Then the price is "<price>"

    Examples:
      | country | plan | price                    |
      | de      | pro  | $14.28 / month incl. VAT |
      | jp      | pro  | $13.20 / month incl. VAT |
      | gb      | free | $0.00 / month            |

  @R8
  Scenario: The meter is empty for an empty password
    Then the strength meter is empty
    When I type "abc" into the password field
    Then the strength meter shows score 1 as "weak"
    When I replace the password field with ""
    Then the strength meter is empty

  @R8
  Scenario Outline: Strength of a password
    When I type "<password>" into the password field
    Then the strength meter shows score <score> as "<level>"

    Examples:
      | password     | score | level  |
      | abcdefgh     | 2     | weak   |
      | aB3$         | 4     | fair   |
      | Abcdefghij1  | 4     | fair   |
      | Abcdefghijk1 | 5     | strong |
