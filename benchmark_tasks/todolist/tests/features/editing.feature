Feature: Editing items inline and keeping them across reloads

  Background:
    Given the app is open
    And I have added the items "Buy milk, Walk the dog, Call mom"

  @R8
  Scenario: Double-clicking an item's text opens a focused edit input
    When I double-click the item "Walk the dog"
    Then the edit input contains "Walk the dog" and has the focus

  @R8
  Scenario: Enter saves the trimmed text in place and keeps the completed state
    Given I have completed the item "Walk the dog"
    When I double-click the item "Walk the dog"
    And I replace the edit text with "  Walk the neighbour's dog  "
    And I press Enter in the edit input
    Then no item is being edited
    And the visible items are "Buy milk, Walk the neighbour's dog, Call mom"
    And the item "Walk the neighbour's dog" is completed

  @R8
  Scenario: Escape cancels the edit and keeps the previous text
    When I double-click the item "Call mom"
    And I replace the edit text with "Call dad"
    And I press Escape in the edit input
    Then no item is being edited
    And the visible items are "Buy milk, Walk the dog, Call mom"

  @R8
  Scenario Outline: An invalid edit is rejected and the item stays in edit mode
    When I double-click the item "Buy milk"
    And I replace the edit text with a text of <length> characters
    And I press Enter in the edit input
    Then the error message is "<message>"
    And the edit input contains a text of <length> characters

    Examples:
      | length | message                              |
      | 0      | Please enter a todo.                 |
      | 81     | A todo can be at most 80 characters. |

  @R8
  Scenario: Escape after a rejected whitespace-only edit restores the text and clears the error
    When I double-click the item "Buy milk"
    And I replace the edit text with 3 spaces
    And I press Enter in the edit input
    Then the error message is "Please enter a todo."
    And the edit input contains 3 spaces
    When I press Escape in the edit input
    Then no item is being edited
    And no error message is shown
    And the visible items are "Buy milk, Walk the dog, Call mom"

  @R8
  Scenario: Clicking elsewhere cancels the edit
    When I double-click the item "Buy milk"
    And I replace the edit text with "Buy bread"
    And I click on the counter
    Then no item is being edited
    And the visible items are "Buy milk, Walk the dog, Call mom"

  @R9
  Scenario: Items and their order survive a reload
    When I reload the page
    Then the visible items are "Buy milk, Walk the dog, Call mom"
    And the item "Buy milk" is active

  @R9
  Scenario: Completed states survive a reload
    Given I have completed the item "Walk the dog"
    When I reload the page
    Then the item "Walk the dog" is completed
    And the item "Buy milk" is active
    And the item "Call mom" is active

  @R9
  Scenario: Edits and cleared items stay that way after a reload
    Given I have completed the item "Call mom"
    When I click the clear completed button
    And I double-click the item "Buy milk"
    And I replace the edit text with "Buy oat milk"
    And I press Enter in the edit input
    And I reload the page
    Then the visible items are "Buy oat milk, Walk the dog"

  @R9
  Scenario: The filter is not saved and resets to All after a reload
    Given I have completed the item "Walk the dog"
    When I select the filter "completed"
    And I reload the page
    Then the filter is set to "all"
    And the visible items are "Buy milk, Walk the dog, Call mom"
