Feature: Duration settings, validation and persistence

  Background:
    Given the app is open

  @R7
  Scenario Outline: An invalid focus duration is rejected and the last valid one kept
    When I set the focus duration to "<value>"
    Then the error message is "Focus duration must be a whole number of seconds from 1 to 3600."
    And the focus duration field is marked invalid
    And the "start" button is disabled
    And the display still shows "<shown>"

    Examples: each value is typed one character at a time
      | value | shown |
      | abc   | 25:00 |
      | 2.5   | 00:02 |
      | 0     | 25:00 |
      | 3601  | 06:00 |

  @R7
  Scenario Outline: Boundary and zero-padded durations are accepted
    When I set the focus duration to "<value>"
    Then the display shows "<shown>"
    And the error message is ""
    And the focus duration field is not marked invalid
    And the "start" button is enabled

    Examples:
      | value | shown |
      | 3600  | 60:00 |
      | 0060  | 01:00 |

  @R7
  Scenario: An empty break duration shows the break message until it is fixed
    When I set the break duration to ""
    Then the error message is "Break duration must be a whole number of seconds from 1 to 3600."
    And the break duration field is marked invalid
    And the focus duration field is not marked invalid
    And the "start" button is disabled
    When I set the break duration to "20"
    Then the error message is ""
    And the break duration field is not marked invalid
    And the "start" button is enabled

  @R7
  Scenario: The focus message is shown when both durations are invalid
    When I set the break duration to "-5"
    And I set the focus duration to "1e2"
    Then the error message is "Focus duration must be a whole number of seconds from 1 to 3600."
    When I set the focus duration to " 45 "
    Then the error message is "Break duration must be a whole number of seconds from 1 to 3600."
    And the display shows "00:45"

  @R7
  Scenario: Space does not start while a duration is invalid
    When I set the focus duration to "12 3"
    And I press Space
    Then the timer does not have the class "running"
    And the "start" button is disabled
    And the display still shows "00:12"

  @R9
  Scenario: Durations survive a reload
    When I set the focus duration to "45"
    And I set the break duration to "20"
    And I reload the page
    Then the focus duration field shows "45"
    And the break duration field shows "20"
    And the display shows "00:45"
    And the phase shows "Focus"

  @R9
  Scenario: An invalid value is not stored
    When I set the break duration to "20"
    And I set the break duration to "abc"
    And I reload the page
    Then the break duration field shows "20"
    And the focus duration field shows "1500"
    And the error message is ""

  @R9
  Scenario Outline: Stored durations are checked one by one
    Given the stored durations are "<stored>"
    Then the focus duration field shows "<focus>"
    And the break duration field shows "<break>"
    And the display shows "<shown>"
    And no script error was logged

    Examples:
      | stored                          | focus | break | shown |
      | {"focus": 0, "break": "15"}     | 1500  | 15    | 25:00 |
      | {"focus": 120, "break": 2.5}    | 120   | 300   | 02:00 |
      | not json                        | 1500  | 300   | 25:00 |
