Feature: Completing, counting, filtering and clearing items

  Background:
    Given the app is open

  @R4
  Scenario: Checking an item completes only that item
    Given I have added the items "Buy milk, Walk the dog, Call mom"
    When I toggle the item "Walk the dog"
    Then the item "Walk the dog" is completed
    And the item "Buy milk" is active
    And the item "Call mom" is active

  @R4
  Scenario: Unchecking a completed item makes it active again
    Given I have added the items "Buy milk, Walk the dog"
    And I have completed the item "Buy milk"
    When I toggle the item "Buy milk"
    Then the item "Buy milk" is active
    And the item "Walk the dog" is active

  @R4
  Scenario: Several items can be completed independently
    Given I have added the items "Buy milk, Walk the dog, Call mom"
    When I toggle the item "Buy milk"
    And I toggle the item "Call mom"
    Then the item "Buy milk" is completed
    And the item "Walk the dog" is active
    And the item "Call mom" is completed
    And the visible items are "Buy milk, Walk the dog, Call mom"

  @R5
  Scenario Outline: The counter shows the number of active items
    When I add <added> items
    And I complete the first <completed> items
    Then the counter shows "<counter>"

    Examples:
      | added | completed | counter       |
      | 0     | 0         | 0 items left  |
      | 1     | 0         | 1 item left   |
      | 3     | 2         | 1 item left   |
      | 2     | 2         | 0 items left  |
      | 10    | 0         | 10 items left |

  @R5
  Scenario: The counter ignores the filter and follows unchecking
    Given I have added the items "Buy milk, Walk the dog, Call mom"
    And I have completed the item "Walk the dog"
    When I select the filter "completed"
    Then the counter shows "2 items left"
    When I toggle the item "Walk the dog"
    Then the counter shows "3 items left"

  @R6
  Scenario Outline: The filter shows only the matching items
    Given I have added the items "Buy milk, Walk the dog, Call mom, Read a book"
    And I have completed the item "Walk the dog"
    And I have completed the item "Read a book"
    When I select the filter "<filter>"
    Then the visible items are "<shown>"

    Examples:
      | filter    | shown                                         |
      | all       | Buy milk, Walk the dog, Call mom, Read a book |
      | active    | Buy milk, Call mom                            |
      | completed | Walk the dog, Read a book                     |

  @R6
  Scenario: Completing an item while Active is selected hides it
    Given I have added the items "Buy milk, Walk the dog, Call mom"
    When I select the filter "active"
    And I toggle the item "Buy milk"
    Then the visible items are "Walk the dog, Call mom"
    When I select the filter "all"
    Then the visible items are "Buy milk, Walk the dog, Call mom"

  @R6
  Scenario: A new item is not shown while Completed is selected
    Given I have added the items "Buy milk, Walk the dog"
    And I have completed the item "Walk the dog"
    When I select the filter "completed"
    And I add the item "Feed the cat"
    Then the visible items are "Walk the dog"
    When I select the filter "all"
    Then the visible items are "Buy milk, Walk the dog, Feed the cat"

  @R7
  Scenario: Clear completed removes only the completed items
    Given I have added the items "Buy milk, Walk the dog, Call mom, Read a book"
    And I have completed the item "Walk the dog"
    And I have completed the item "Read a book"
    When I click the clear completed button
    Then the visible items are "Buy milk, Call mom"
    And the item "Buy milk" is active
    And the item "Call mom" is active

  @R7
  Scenario: The button is enabled only while an item is completed
    Then the clear completed button is disabled
    When I add the items "Buy milk, Walk the dog"
    Then the clear completed button is disabled
    When I toggle the item "Buy milk"
    Then the clear completed button is enabled
    When I toggle the item "Buy milk"
    Then the clear completed button is disabled

  @R7
  Scenario: The button is disabled again after clearing
    Given I have added the items "Buy milk, Walk the dog"
    And I have completed the item "Buy milk"
    And I have completed the item "Walk the dog"
    When I click the clear completed button
    Then no items are visible
    And the clear completed button is disabled
