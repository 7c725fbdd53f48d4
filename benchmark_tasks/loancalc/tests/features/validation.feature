@R6
Feature: Amount validation
  An invalid amount shows a message next to the field and hides the results.

  Background:
    Given the app is open

  Scenario Outline: Invalid amount shows an error and hides the results
    When I set the amount to "<amount>"
    Then the amount error is "<message>"
    And the amount field is marked invalid
    And "results" is not displayed

    Examples:
      | amount     | message                                    |
      |            | Amount is required                         |
      | abc        | Amount must be a number                    |
      | 12,000     | Amount must be a number                    |
      | 1000.123   | Amount must be a number                    |
      | 999.99     | Amount must be between 1,000 and 5,000,000 |
      | 5000000.01 | Amount must be between 1,000 and 5,000,000 |

  Scenario: Only whitespace counts as empty
    When I set the amount to "   "
    Then the amount error is "Amount is required"
    And "results" is not displayed

  Scenario: Lower limit with surrounding spaces is accepted
    When I set the amount to "  1000  "
    Then the amount error is hidden
    And the amount field is marked valid
    And "results" is displayed
    And "monthly-payment" shows "$5.37"

  Scenario: Upper limit is accepted
    When I set the amount to "5000000"
    Then the amount error is hidden
    And "results" is displayed
    And "monthly-payment" shows "$26,841.08"
    And "total-paid" shows "$9,662,789.21"

  Scenario: Correcting the amount clears the error
    When I set the amount to "-5000"
    Then the amount error is "Amount must be a number"
    When I set the amount to "80000"
    Then the amount error is hidden
    And the amount field is marked valid
    And "results" is displayed
    And "monthly-payment" shows "$429.46"
