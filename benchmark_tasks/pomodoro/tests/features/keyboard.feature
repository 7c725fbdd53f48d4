Feature: Keyboard shortcuts

  Background:
    Given the app is open
    And the durations are focus 3 s and break 5 s

  @R8
  Scenario: Space starts the timer
    When I press Space
    Then the timer has the class "running"
    And the "pause" button is enabled
    And the "start" button is disabled

  @R8
  Scenario: Space pauses a running timer
    Given I click "start"
    When I press Space
    Then the timer does not have the class "running"
    And the "start" button is enabled
    And the "pause" button is disabled

  @R8
  Scenario Outline: The r key resets in either case
    Given I click "start"
    When I press <key>
    Then the timer does not have the class "running"
    And the display shows "00:03"
    And the "pause" button is disabled

    Examples:
      | key |
      | r   |
      | R   |

  @R8
  Scenario: Space in a duration field only types into it
    When I press Space in the focus duration field
    Then the timer does not have the class "running"
    And the focus duration field shows "3 "
    And the display still shows "00:03"

  @R8
  Scenario: The r key in a duration field does not reset
    Given I click "start"
    When I press r in the break duration field
    Then the timer has the class "running"
    And the break duration field shows "5r"
    And the "pause" button is enabled
