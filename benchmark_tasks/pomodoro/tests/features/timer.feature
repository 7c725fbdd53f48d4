Feature: Counting down focus and break phases

  Background:
    Given the app is open

  @R1
  Scenario: Initial state with empty storage
    Then the phase shows "Focus"
    And the display shows "25:00"
    And the sessions counter shows "0"
    And the error message is ""
    And the timer has the class "focus"
    And the timer does not have the class "running"
    And the timer does not have the class "break"
    And the timer does not have the class "flash"

  @R1
  Scenario: Buttons and fields in the initial state
    Then the "start" button is enabled
    And the "pause" button is disabled
    And the "reset" button is enabled
    And the focus duration field shows "1500"
    And the break duration field shows "300"

  @R1
  Scenario: While idle only the focus duration changes the display
    When I set the break duration to "45"
    Then the display still shows "25:00"
    When I set the focus duration to "90"
    Then the display shows "01:30"
    And the phase shows "Focus"
    And the timer does not have the class "running"

  @R2
  Scenario Outline: A duration is shown as zero-padded minutes and seconds
    When I set the focus duration to "<seconds>"
    Then the display shows "<shown>"

    Examples:
      | seconds | shown |
      | 1       | 00:01 |
      | 61      | 01:01 |
      | 3600    | 60:00 |

  @R2
  Scenario: The countdown is rounded up and never shows 00:00
    Given the durations are focus 2 s and break 5 s
    And the display and phase texts are being recorded
    When I click "start"
    Then the display has shown "00:02, 00:01, 00:05" within 4 seconds
    And the phase has shown "Focus, Break" within 2 seconds

  @R2
  Scenario: Minutes roll over while counting down
    Given the durations are focus 61 s and break 5 s
    And the display and phase texts are being recorded
    When I click "start"
    Then the display has shown "01:01, 01:00" within 3 seconds

  @R3
  Scenario: Start counts down and marks the timer as running
    Given the durations are focus 3 s and break 5 s
    And the display and phase texts are being recorded
    When I click "start"
    Then the timer has the class "running"
    And the "start" button is disabled
    And the "pause" button is enabled
    And the display has shown "00:03, 00:02" within 3 seconds

  @R3
  Scenario: Pause keeps the remaining time and start resumes from it
    Given the durations are focus 3 s and break 5 s
    And the display and phase texts are being recorded
    And I click "start"
    And the display has shown "00:03, 00:02" within 3 seconds
    When I click "pause"
    And I note the display
    And I wait 1.1 seconds
    Then the display still shows the noted time
    And the timer does not have the class "running"
    And the "start" button is enabled
    And the "pause" button is disabled
    And the phase shows "Focus"
    When I click "start"
    Then the display shows at most the noted time
    And the timer has the class "running"
    And the phase shows "Break" within 3 seconds

  @R3
  Scenario: Changing the focus duration while running keeps the countdown
    Given the durations are focus 3 s and break 5 s
    And the display and phase texts are being recorded
    And I click "start"
    When I set the focus duration to "50"
    Then the display has shown "00:03, 00:02" within 3 seconds
    And the timer has the class "running"

  @R4
  Scenario: The end of the focus phase starts the break with its current duration
    Given the durations are focus 2 s and break 5 s
    And the display and phase texts are being recorded
    And I click "start"
    When I set the break duration to "3"
    Then the display has shown "00:02, 00:01, 00:03" within 4 seconds
    And the phase shows "Break"
    And the timer has the class "break"
    And the timer does not have the class "focus"
    And the timer has the class "running"

  @R4
  Scenario: The end of the break starts the next focus phase
    Given the durations are focus 2 s and break 1 s
    And the display and phase texts are being recorded
    When I click "start"
    Then the phase has shown "Focus, Break, Focus" within 5 seconds
    And the timer has the class "focus"
    And the timer does not have the class "break"
    And the timer has the class "running"

  @R4
  Scenario: A flash marks the end of a phase for 600 ms
    Given the durations are focus 1 s and break 5 s
    And the flash class is being recorded
    When I click "start"
    Then the timer does not have the class "flash"
    And the timer gets the class "flash" within 3 seconds
    And the phase shows "Break"
    And the timer loses the class "flash" within 3 seconds
    And the flash lasted between 400 and 1500 ms

  @R4
  Scenario: Start, pause and reset do not flash
    Given the durations are focus 5 s and break 5 s
    And the flash class is being recorded
    When I click "start"
    And I click "pause"
    And I click "start"
    And I click "reset"
    Then the flash class was never set
    And the timer does not have the class "flash"

  @R5
  Scenario: A completed focus phase counts and reset keeps the count
    Given the durations are focus 1 s and break 5 s
    When I click "start"
    Then the sessions counter shows "1" within 3 seconds
    When I click "reset"
    Then the sessions counter still shows "1"

  @R5
  Scenario: The end of a break does not count
    Given the durations are focus 2 s and break 1 s
    And the display and phase texts are being recorded
    When I click "start"
    And the sessions counter shows "1" within 4 seconds
    And the phase has shown "Focus, Break, Focus" within 4 seconds
    Then the sessions counter still shows "1"

  @R5
  Scenario: The counter is back at 0 after a reload
    Given the durations are focus 1 s and break 5 s
    And I click "start"
    And the sessions counter shows "1" within 3 seconds
    When I reload the page
    Then the sessions counter shows "0"

  @R6
  Scenario: Reset stops a running focus phase
    Given the durations are focus 3 s and break 5 s
    And I click "start"
    When I click "reset"
    And I wait 1.2 seconds
    Then the display still shows "00:03"
    And the timer does not have the class "running"
    And the "start" button is enabled
    And the "pause" button is disabled

  @R6
  Scenario: Reset during a break returns to the focus phase
    Given the durations are focus 1 s and break 5 s
    And I click "start"
    And the phase shows "Break" within 3 seconds
    When I click "reset"
    Then the phase shows "Focus"
    And the display shows "00:01"
    And the timer has the class "focus"
    And the timer does not have the class "break"
    And the timer does not have the class "running"

  @R6
  Scenario: Reset while paused uses the focus duration changed meanwhile
    Given the durations are focus 3 s and break 5 s
    And I click "start"
    And I click "pause"
    When I set the focus duration to "10"
    And I click "reset"
    Then the display shows "00:10"
    And the phase shows "Focus"
    And the "start" button is enabled
    And the "pause" button is disabled
