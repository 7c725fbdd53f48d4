Feature: Loan calculator inputs and results
  The monthly payment, total paid and total interest follow the amount, the rate slider and
  the term immediately.

  Background:
    Given the app is open

  @R1
  Scenario: Default inputs on load
    Then the amount field contains "200000"
    And the rate slider value is "5"
    And "rate-label" shows "5.00%"
    And the selected term is "30"

  @R1
  Scenario: Default results on load
    Then "results" is displayed
    And "monthly-payment" shows "$1,073.64"
    And "total-paid" shows "$386,511.57"
    And "total-interest" shows "$186,511.57"

  @R1
  Scenario: No error and no schedule on load
    Then the amount error is hidden
    And "schedule" is not displayed
    And "schedule-toggle" shows "Show schedule"

  @R2
  Scenario Outline: Rate label shows the slider value with two decimals
    When I set the interest rate to <rate>
    Then "rate-label" shows "<label>"

    Examples:
      | rate  | label  |
      | 0     | 0.00%  |
      | 7.5   | 7.50%  |
      | 12.25 | 12.25% |

  @R2
  Scenario: Arrow keys move the slider by one step
    When I press RIGHT on the rate slider
    Then "rate-label" shows "5.25%"
    When I press LEFT on the rate slider
    And I press LEFT on the rate slider
    Then "rate-label" shows "4.75%"

  @R2
  Scenario: Home and End keys reach the limits of the slider
    When I press END on the rate slider
    Then "rate-label" shows "15.00%"
    When I press HOME on the rate slider
    Then "rate-label" shows "0.00%"

  @R3
  Scenario Outline: Monthly payment by the annuity formula
    When I enter the loan "<amount>" at <rate> percent for <years> years
    Then "monthly-payment" shows "<payment>"

    Examples:
      | amount    | rate | years | payment    |
      | 250000    | 3.5  | 30    | $1,122.61  |
      | 350000.50 | 4.75 | 20    | $2,261.79  |
      | 4750000   | 12.5 | 25    | $51,791.82 |

  @R3
  Scenario: Typing the amount updates the payment immediately
    When I set the amount to "50000"
    Then "monthly-payment" shows "$268.41"

  @R3
  Scenario: Moving the slider and changing the term update the payment
    When I press RIGHT on the rate slider
    Then "monthly-payment" shows "$1,104.41"
    When I press LEFT on the rate slider
    And I select the term "15"
    Then "monthly-payment" shows "$1,581.59"

  @R4
  Scenario Outline: Total paid and total interest
    When I enter the loan "<amount>" at <rate> percent for <years> years
    Then "total-paid" shows "<paid>"
    And "total-interest" shows "<interest>"

    Examples:
      | amount    | rate | years | paid           | interest       |
      | 250000    | 3.5  | 30    | $404,140.22    | $154,140.22    |
      | 350000.50 | 4.75 | 20    | $542,828.62    | $192,828.12    |
      | 4750000   | 12.5 | 25    | $15,537,546.45 | $10,787,546.45 |

  @R4
  Scenario: Totals follow the term and the slider
    When I select the term "10"
    Then "total-paid" shows "$254,557.24"
    And "total-interest" shows "$54,557.24"
    When I press RIGHT on the rate slider
    And I select the term "30"
    Then "total-paid" shows "$397,586.67"
    And "total-interest" shows "$197,586.67"

  @R5
  Scenario Outline: Zero interest divides the amount evenly
    When I enter the loan "<amount>" at 0 percent for <years> years
    Then "monthly-payment" shows "<payment>"
    And "total-paid" shows "<paid>"
    And "total-interest" shows "$0.00"

    Examples:
      | amount | years | payment | paid       |
      | 12000  | 5     | $200.00 | $12,000.00 |
      | 10000  | 30    | $27.78  | $10,000.00 |

  @R5
  Scenario: Home key on the slider gives an interest-free loan
    When I press HOME on the rate slider
    Then "monthly-payment" shows "$555.56"
    And "total-paid" shows "$200,000.00"
    And "total-interest" shows "$0.00"
