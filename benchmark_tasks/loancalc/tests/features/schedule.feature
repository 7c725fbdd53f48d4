Feature: Amortization schedule and reset
  A yearly amortization table shown by a toggle button, and a reset to the defaults.

  Background:
    Given the app is open

  @R7
  Scenario: The toggle button shows and hides the schedule
    When I click "schedule-toggle"
    Then "schedule" is displayed
    And "schedule-toggle" shows "Hide schedule"
    When I click "schedule-toggle"
    Then "schedule" is not displayed
    And "schedule-toggle" shows "Show schedule"

  @R7
  Scenario: Schedule columns and yearly values for the default loan
    When I click "schedule-toggle"
    Then the schedule headers are "Year | Principal | Interest | Balance"
    And the schedule has 30 rows
    And schedule row 1 reads "1 | $2,950.73 | $9,932.99 | $197,049.27"
    And schedule row 2 reads "2 | $3,101.70 | $9,782.02 | $193,947.57"
    And the last schedule row reads "30 | $12,541.47 | $342.25 | $0.00"

  @R7
  Scenario Outline: One schedule row per year of the term
    When I select the term "<years>"
    And I click "schedule-toggle"
    Then the schedule has <years> rows
    And the last schedule row reads "<last>"

    Examples:
      | years | last                               |
      | 5     | 5 \| $44,087.81 \| $1,203.15 \| $0.00   |
      | 10    | 10 \| $24,779.50 \| $676.23 \| $0.00   |

  @R7
  Scenario: Interest-free schedule
    When I enter the loan "12000" at 0 percent for 5 years
    And I click "schedule-toggle"
    Then the schedule has 5 rows
    And schedule row 1 reads "1 | $2,400.00 | $0.00 | $9,600.00"
    And schedule row 4 reads "4 | $2,400.00 | $0.00 | $2,400.00"
    And the last schedule row reads "5 | $2,400.00 | $0.00 | $0.00"

  @R7
  Scenario: An open schedule follows input changes
    When I click "schedule-toggle"
    And I select the term "10"
    Then the schedule has 10 rows
    And schedule row 1 reads "1 | $15,814.88 | $9,640.84 | $184,185.12"
    When I select the term "30"
    And I set the amount to "100000"
    Then the schedule has 30 rows
    And schedule row 1 reads "1 | $1,475.37 | $4,966.49 | $98,524.63"

  @R7
  Scenario: An invalid amount hides the open schedule until it is fixed
    When I click "schedule-toggle"
    And I set the amount to "abc"
    Then "schedule" is not displayed
    And "schedule-toggle" is disabled
    When I set the amount to "100000"
    Then "schedule" is displayed
    And "schedule-toggle" is enabled
    And "schedule-toggle" shows "Hide schedule"

  @R8
  Scenario: Reset restores the default inputs and results
    When I enter the loan "75000" at 9.25 percent for 10 years
    And I click "reset"
    Then the amount field contains "200000"
    And the rate slider value is "5"
    And "rate-label" shows "5.00%"
    And the selected term is "30"
    And "monthly-payment" shows "$1,073.64"
    And "total-paid" shows "$386,511.57"
    And "total-interest" shows "$186,511.57"

  @R8
  Scenario: Reset clears the validation error
    When I set the amount to "12,000"
    And I click "reset"
    Then the amount error is hidden
    And the amount field is marked valid
    And "results" is displayed
    And "monthly-payment" shows "$1,073.64"

  @R8
  Scenario: Reset hides the schedule
    When I click "schedule-toggle"
    And I press RIGHT on the rate slider
    And I click "reset"
    Then "schedule" is not displayed
    And "schedule-toggle" is enabled
    And "schedule-toggle" shows "Show schedule"
    And "rate-label" shows "5.00%"
