Feature: Adding todo items
  New items are typed into the new-todo input and added with the Add button or the Enter key;
  empty, whitespace-only and over-long texts are rejected with an error message.

  Background:
    Given the app is open

  @R1
  Scenario: Clicking Add appends the typed item and empties the input
    When I type "Buy milk" into the new todo input
    And I click the add button
    Then the visible items are "Buy milk"
    And the item "Buy milk" is active
    And the new todo input is empty

  @R1
  Scenario: Items are listed in the order they were added and duplicates are kept
    When I add the item "Buy milk"
    And I add the item "Walk the dog"
    And I add the item "Buy milk"
    Then the visible items are "Buy milk, Walk the dog, Buy milk"

  @R1
  Scenario: Whitespace around the text is trimmed
    When I type "   Call mom   " into the new todo input
    And I click the add button
    Then the visible items are "Call mom"
    And the new todo input is empty

  @R2
  Scenario: Pressing Enter adds the typed item and empties the input
    When I type "Water the plants" into the new todo input
    And I press Enter in the new todo input
    Then the visible items are "Water the plants"
    And the item "Water the plants" is active
    And the new todo input is empty

  @R2
  Scenario: Typing without pressing Enter adds nothing
    When I type "Draft idea" into the new todo input
    Then no items are visible
    And the new todo input contains "Draft idea"

  @R2
  Scenario: Several Enter presses add the items in order
    When I type "First" into the new todo input
    And I press Enter in the new todo input
    And I type "  Second  " into the new todo input
    And I press Enter in the new todo input
    And I type "Third" into the new todo input
    And I press Enter in the new todo input
    Then the visible items are "First, Second, Third"

  @R3
  Scenario Outline: Empty or whitespace-only text is rejected
    When I type <spaces> spaces into the new todo input
    And I submit with <how>
    Then no items are visible
    And the error message is "Please enter a todo."

    Examples:
      | spaces | how            |
      | 0      | the add button |
      | 4      | the add button |
      | 2      | Enter          |

  @R3
  Scenario: Text longer than 80 characters is rejected and kept in the input
    When I type a text of 81 characters into the new todo input
    And I press Enter in the new todo input
    Then no items are visible
    And the error message is "A todo can be at most 80 characters."
    And the new todo input contains a text of 81 characters

  @R3
  Scenario: Exactly 80 characters after trimming are accepted
    When I type a text of 80 characters padded with 3 spaces into the new todo input
    And I click the add button
    Then the only visible item is a text of 80 characters
    And no error message is shown

  @R3
  Scenario: A successful add clears the error message
    When I type 3 spaces into the new todo input
    And I click the add button
    Then the error message is "Please enter a todo."
    When I type "Fix the bike" into the new todo input
    And I click the add button
    Then no error message is shown
    And the visible items are "Fix the bike"
